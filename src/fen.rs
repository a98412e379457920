//! The one FEN reader: `position fen`, book lines, `perft` and the bench
//! positions all go through [`parse_fen`], with the same rules.

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

/// Parses a FEN (4 to 6 fields; missing counters default to 0 and 1) in
/// the castling notation `mode`.
// shakmaty's position errors carry the position itself; they are short-lived.
#[allow(clippy::result_large_err)]
pub fn parse_fen(text: &str, mode: CastlingMode) -> Result<Chess, String> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    let completed = match fields.len() {
        4 => format!("{text} 0 1"),
        5 => format!("{text} 1"),
        6 => text.to_string(),
        _ => {
            return Err(format!(
                "malformed FEN '{}': expected 4 to 6 fields",
                short(text)
            ))
        }
    };
    let fen: Fen = completed
        .parse()
        .map_err(|e| format!("malformed FEN '{}': {e}", short(text)))?;
    // Set-ups no game could reach (a check no last move gives, ten queens)
    // are still positions a user may want analysed, as in other engines.
    // An impossible en-passant square is dropped. Missing kings, pawns on
    // the back rank or a side to move giving check are refused.
    fen.into_position(mode)
        .or_else(|e| e.ignore_impossible_check())
        .or_else(|e| e.ignore_too_much_material())
        .or_else(|e| e.ignore_invalid_ep_square())
        .map_err(|e| format!("illegal position in FEN '{}': {e}", short(text)))
}

/// The first 100 characters of user text, for a message about it.
pub(crate) fn short(text: &str) -> String {
    text.chars().take(100).collect()
}

/// One book line as a position: a FEN, or an EPD line (its four fields),
/// in standard castling notation, else Chess960's.
#[allow(clippy::result_large_err)]
pub fn parse_book_line(line: &str) -> Result<Chess, String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.len() < 4 {
        return Err(format!("not a FEN/EPD line: '{}'", short(line)));
    }
    // EPD operations follow the four fields; a FEN's counters are numbers.
    let counters =
        fields.len() >= 6 && fields[4].parse::<u32>().is_ok() && fields[5].parse::<u32>().is_ok();
    let fen_text = fields[..if counters { 6 } else { 4 }].join(" ");
    parse_fen(&fen_text, CastlingMode::Standard)
        .or_else(|_| parse_fen(&fen_text, CastlingMode::Chess960))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Position;

    #[test]
    fn book_lines() {
        let epd = parse_book_line(
            "rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - bm c4; id \"x\";",
        )
        .unwrap();
        assert_eq!(epd.fullmoves().get(), 1);
        let fen = parse_book_line("8/8/4k3/8/8/3QK3/8/8 w - - 12 40").unwrap();
        assert_eq!(fen.halfmoves(), 12);
        assert!(parse_book_line("8/8/8 w").is_err());
        assert!(parse_book_line("8/8/8/8/8/8/8/8 w - -").is_err());
    }
}
