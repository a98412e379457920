//! The earlier text format, one position per line, White's view:
//!
//! ```text
//! <FEN> | <score in cp> | <result: 1.0, 0.5 or 0.0>
//! ```
//!
//! Each line becomes a one-ply record: the position, its score from the side
//! to move's view and a "no move" ply (the text format did not keep moves).

use std::io::{BufRead, Write};

use kiraly::fen::parse_book_line;
use kiraly::game::GameResult;
use shakmaty::{Color, Position};

use crate::format::{stored_score, Game, Ply};

/// Parses one text line into a record.
pub fn parse_line(line: &str) -> Result<Game, String> {
    let mut parts = line.split('|').map(str::trim);
    let (Some(fen), Some(score), Some(result), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err("expected '<FEN> | <score> | <result>'".into());
    };
    let start = parse_book_line(fen)?;
    let white_score: i32 = score.parse().map_err(|_| format!("bad score '{score}'"))?;
    let result = match result {
        "1.0" | "1" => GameResult::WhiteWins,
        "0.5" => GameResult::Draw,
        "0.0" | "0" => GameResult::BlackWins,
        other => return Err(format!("bad result '{other}'")),
    };
    let stm_score = match start.turn() {
        Color::White => white_score,
        Color::Black => -white_score,
    };
    Ok(Game {
        start,
        plies: vec![Ply {
            mv: 0,
            score: stored_score(stm_score),
        }],
        result,
    })
}

/// Converts every line of `input`; blank lines are skipped, a bad line is an
/// error naming its number. Returns the number of positions written.
pub fn convert(input: impl BufRead, output: &mut impl Write) -> Result<u64, String> {
    let mut written = 0;
    for (i, line) in input.lines().enumerate() {
        let line = line.map_err(|e| format!("line {}: {e}", i + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let game = parse_line(&line).map_err(|e| format!("line {}: {e}", i + 1))?;
        game.write(output).map_err(|e| format!("writing: {e}"))?;
        written += 1;
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{for_each_sample, Filter};

    #[test]
    fn text_lines_become_scored_positions_from_the_movers_view() {
        let text = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 35 | 1.0\n\
                    \n\
                    8/8/4k3/8/8/3QK3/8/8 w - - 12 40 | 900 | 0.5\n";
        let mut bytes = Vec::new();
        assert_eq!(convert(text.as_bytes(), &mut bytes).unwrap(), 2);
        let mut samples = Vec::new();
        for_each_sample(&mut bytes.as_slice(), &Filter::none(), |s| {
            samples.push((s.score, s.white_score(), s.stm_result(), s.mv.is_none()))
        })
        .unwrap();
        // Black to move in the first: +35 for White is -35 for the mover,
        // and White's win is the mover's loss.
        assert_eq!(samples, vec![(-35, 35, 0.0, true), (900, 900, 0.5, true)]);
        assert!(convert("8/8 w | 1 | 1.0".as_bytes(), &mut Vec::new()).is_err());
        let err = convert(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | x | 1.0".as_bytes(),
            &mut Vec::new(),
        )
        .unwrap_err();
        assert!(err.starts_with("line 1"), "{err}");
    }
}
