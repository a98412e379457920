//! PGN games to training records, for games played by fastchess, cutechess,
//! OpenBench's datagen workloads and `tools/match.py`.
//!
//! Those tools write after every engine move a comment whose first word is
//! the mover's score, optionally followed by `/depth` and more words:
//! `{+0.35/12 0.512s}`, `{-M4/20 0.1s}`, `{+1.20 14/22 0.25 102400}`.
//! Scores are in pawns from the mover's side, `M`/`#` for mate in moves.
//! Moves before the first scored one (book moves) start the record; a later
//! move without a score is kept with the "no score" mark so the game still
//! replays, and training skips it.

use std::collections::HashMap;
use std::io::{BufRead, Write};

use kiraly::fen::parse_book_line;
use kiraly::game::GameResult;
use kiraly::score::MATE;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, Move, Position};

use crate::format::{encode_move, Game, Ply, MAX_PLIES, NO_SCORE};

/// The score of a move comment, in centipawns from the mover's view (mate in
/// n moves as the engine's mate scores).
pub fn comment_score(comment: &str) -> Option<i16> {
    let word = comment.split_whitespace().next()?;
    let word = word.split('/').next()?.trim_end_matches(',');
    let (negative, body) = match word.as_bytes().first()? {
        b'-' => (true, &word[1..]),
        b'+' => (false, &word[1..]),
        _ => (false, word),
    };
    let mate = body.strip_prefix('M').or_else(|| body.strip_prefix('#'));
    let score = if let Some(moves) = mate {
        // "#-3" is also seen for being mated.
        let (negative, moves) = match moves.strip_prefix('-') {
            Some(m) => (true, m),
            None => (negative, moves),
        };
        let n: i32 = moves.parse().ok()?;
        if n <= 0 {
            return None;
        }
        if negative {
            -(MATE - 2 * n)
        } else {
            MATE - (2 * n - 1)
        }
    } else {
        if !body.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        let pawns: f64 = body.parse().ok()?;
        let cp = (pawns * 100.0).round();
        if !cp.is_finite() || cp.abs() >= f64::from(MATE - 1000) {
            return None;
        }
        if negative {
            -cp as i32
        } else {
            cp as i32
        }
    };
    Some(score.clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16)
}

/// Counts of a conversion.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnSummary {
    pub games: u64,
    pub positions: u64,
    /// Games left out: unfinished (`*`), no scored move, or unreadable.
    pub skipped: u64,
}

/// One game's text: its tag pairs and its movetext.
#[derive(Default)]
struct RawGame {
    tags: HashMap<String, String>,
    movetext: String,
    first_line: usize,
}

/// Reads `input` game by game, converts each and writes the records.
/// Problems with one game are reported on stderr (with its first line) and
/// the game is skipped; an output error ends the conversion.
pub fn convert(input: impl BufRead, output: &mut impl Write) -> Result<PgnSummary, String> {
    let mut summary = PgnSummary::default();
    let mut raw = RawGame::default();
    let mut finish = |raw: &mut RawGame, summary: &mut PgnSummary| -> Result<(), String> {
        let taken = std::mem::take(raw);
        if taken.tags.is_empty() && taken.movetext.trim().is_empty() {
            return Ok(());
        }
        match to_game(&taken) {
            Ok(game) => {
                game.write(output).map_err(|e| format!("writing: {e}"))?;
                summary.games += 1;
                summary.positions += game.plies.len() as u64;
            }
            Err(problem) => {
                eprintln!(
                    "datagen pgn: game at line {} skipped: {problem}",
                    taken.first_line
                );
                summary.skipped += 1;
            }
        }
        Ok(())
    };
    let mut in_comment = false;
    for (i, line) in input.lines().enumerate() {
        let line = line.map_err(|e| format!("line {}: {e}", i + 1))?;
        let trimmed = line.trim();
        if !in_comment && trimmed.starts_with('[') {
            if !raw.movetext.trim().is_empty() {
                finish(&mut raw, &mut summary)?;
            }
            if raw.tags.is_empty() {
                raw.first_line = i + 1;
            }
            if let Some((key, value)) = parse_tag(trimmed) {
                raw.tags.insert(key, value);
            }
            continue;
        }
        if raw.tags.is_empty() && raw.movetext.is_empty() {
            raw.first_line = i + 1;
        }
        // Track open comments so a '[' inside a multi-line comment is text.
        for c in line.chars() {
            match c {
                '{' => in_comment = true,
                '}' => in_comment = false,
                _ => {}
            }
        }
        raw.movetext.push_str(&line);
        raw.movetext.push('\n');
    }
    finish(&mut raw, &mut summary)?;
    Ok(summary)
}

fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.trim_end().strip_suffix(']')?;
    let (key, value) = inner.split_once(char::is_whitespace)?;
    let value = value.trim().strip_prefix('"')?.strip_suffix('"')?;
    Some((key.to_string(), value.replace("\\\"", "\"")))
}

/// A movetext token.
#[derive(Debug, PartialEq)]
enum Token<'a> {
    Move(&'a str),
    Comment(&'a str),
    Result(&'a str),
}

/// Splits movetext into moves, comments and the result; move numbers, NAGs,
/// annotation glyphs and variations are dropped.
fn tokens(text: &str) -> Result<Vec<Token<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut depth = 0usize;
    while let Some(c) = rest.chars().next() {
        if c.is_whitespace() {
            rest = &rest[c.len_utf8()..];
            continue;
        }
        match c {
            '{' => {
                let end = rest.find('}').ok_or("comment not closed")?;
                if depth == 0 {
                    out.push(Token::Comment(&rest[1..end]));
                }
                rest = &rest[end + 1..];
            }
            ';' => {
                let end = rest.find('\n').unwrap_or(rest.len());
                rest = &rest[end..];
            }
            '(' => {
                depth += 1;
                rest = &rest[1..];
            }
            ')' => {
                depth = depth.checked_sub(1).ok_or("')' without '('")?;
                rest = &rest[1..];
            }
            _ => {
                let end = rest
                    .find(|c: char| c.is_whitespace() || "{}();".contains(c))
                    .unwrap_or(rest.len());
                let word = &rest[..end];
                rest = &rest[end..];
                if depth > 0 || word.starts_with('$') {
                    continue;
                }
                if matches!(word, "1-0" | "0-1" | "1/2-1/2" | "*") {
                    out.push(Token::Result(word));
                    continue;
                }
                // "12." or "12..." or "12.e4": drop the move number.
                let san = word.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
                let san = san.trim_end_matches(['!', '?']);
                if !san.is_empty() {
                    out.push(Token::Move(san));
                }
            }
        }
    }
    Ok(out)
}

fn result_of(text: &str) -> Option<GameResult> {
    match text {
        "1-0" => Some(GameResult::WhiteWins),
        "0-1" => Some(GameResult::BlackWins),
        "1/2-1/2" => Some(GameResult::Draw),
        _ => None,
    }
}

fn start_position(tags: &HashMap<String, String>) -> Result<Chess, String> {
    let chess960 = tags.get("Variant").is_some_and(|v| {
        let v = v.to_ascii_lowercase().replace([' ', '-'], "");
        v.contains("960") || v.contains("fischerandom") || v.contains("freestyle")
    });
    match tags.get("FEN") {
        Some(fen) => {
            let pos = parse_book_line(fen)?;
            if chess960 && pos.castles().mode() == CastlingMode::Standard {
                // Standard castling rights read as Chess960 ones: the same
                // rooks, moves in king-takes-rook form.
                let setup = pos.to_setup(shakmaty::EnPassantMode::Legal);
                return shakmaty::FromSetup::from_setup(setup, CastlingMode::Chess960)
                    .map_err(|e: shakmaty::PositionError<Chess>| e.to_string());
            }
            Ok(pos)
        }
        None => Ok(Chess::default()),
    }
}

fn to_game(raw: &RawGame) -> Result<Game, String> {
    let mut pos = start_position(&raw.tags)?;
    let tokens = tokens(&raw.movetext)?;
    let mut moves: Vec<(Move, Option<i16>)> = Vec::new();
    let mut ended = None;
    for token in &tokens {
        match *token {
            Token::Move(text) => {
                let san: San = text.parse().map_err(|_| format!("bad move '{text}'"))?;
                let m = san
                    .to_move(&pos)
                    .map_err(|_| format!("illegal move '{text}' after {} plies", moves.len()))?;
                pos.play_unchecked(m);
                moves.push((m, None));
            }
            Token::Comment(text) => {
                if let Some(last) = moves.last_mut() {
                    if last.1.is_none() {
                        last.1 = comment_score(text);
                    }
                }
            }
            Token::Result(text) => ended = Some(text),
        }
    }
    let result_text = raw.tags.get("Result").map(String::as_str).or(ended);
    let result = result_text
        .and_then(result_of)
        .ok_or_else(|| format!("no result ({})", result_text.unwrap_or("none")))?;
    let first_scored = moves
        .iter()
        .position(|(_, s)| s.is_some())
        .ok_or("no move with a score")?;
    let mut start = start_position(&raw.tags)?;
    for (m, _) in &moves[..first_scored] {
        start.play_unchecked(*m);
    }
    let plies = moves[first_scored..]
        .iter()
        .take(MAX_PLIES)
        .map(|(m, score)| Ply {
            mv: encode_move(m),
            score: score.unwrap_or(NO_SCORE),
        })
        .collect();
    Ok(Game {
        start,
        plies,
        result,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{for_each_sample, Filter};

    #[test]
    fn comment_scores() {
        assert_eq!(comment_score("+0.35/12 0.512s"), Some(35));
        assert_eq!(comment_score("-1.20/8 1.0s, White wins"), Some(-120));
        assert_eq!(comment_score("0.00/1 0s"), Some(0));
        assert_eq!(comment_score("+1.20 14/22 0.25 102400"), Some(120));
        assert_eq!(comment_score("+M3/30 0.1s"), Some((MATE - 5) as i16));
        assert_eq!(comment_score("-M4/30 0.1s"), Some((-MATE + 8) as i16));
        assert_eq!(comment_score("#-2"), Some((-MATE + 4) as i16));
        assert_eq!(comment_score("book"), None);
        assert_eq!(comment_score(""), None);
        assert_eq!(comment_score("-"), None);
        assert_eq!(comment_score("+M0"), None);
    }

    #[test]
    fn tokens_skip_numbers_nags_and_variations() {
        let t =
            tokens("1. e4 {+0.3/5} e5 $1 (1... c5 {x} 2. Nf3) 2. Nf3!? ; rest\n Nc6 1-0").unwrap();
        assert_eq!(
            t,
            vec![
                Token::Move("e4"),
                Token::Comment("+0.3/5"),
                Token::Move("e5"),
                Token::Move("Nf3"),
                Token::Move("Nc6"),
                Token::Result("1-0"),
            ]
        );
        assert!(tokens("1. e4 {open").is_err());
    }

    /// FEN, move played (UCI), score and result of each position read back.
    type Row = (String, Option<String>, i16, f32);

    fn samples(pgn: &str) -> (PgnSummary, Vec<Row>) {
        let mut bytes = Vec::new();
        let summary = convert(pgn.as_bytes(), &mut bytes).unwrap();
        let mut out = Vec::new();
        for_each_sample(&mut bytes.as_slice(), &Filter::none(), |s| {
            let fen = shakmaty::fen::Fen::from_position(&s.pos, shakmaty::EnPassantMode::Legal);
            let mv = s.mv.map(|m| m.to_uci(CastlingMode::Standard).to_string());
            out.push((fen.to_string(), mv, s.score, s.stm_result()))
        })
        .unwrap();
        (summary, out)
    }

    #[test]
    fn cutechess_style_game() {
        let pgn = r#"[Event "?"]
[White "a"]
[Black "b"]
[Result "0-1"]

1. e4 {book} e5 {book} 2. Nf3 {+0.35/12 0.512s} Nc6 {-0.20/11 0.4s}
3. Bb5 {+0.41/12 0.5s} a6 4. Ba4 {+M5/20 0.1s} Nf6 {-M4/18 0.1s, Black wins} 0-1

[Event "unfinished"]
[Result "*"]

1. d4 {+0.1/3} *
"#;
        let (summary, s) = samples(pgn);
        assert_eq!(
            summary,
            PgnSummary {
                games: 1,
                positions: 6,
                skipped: 1
            }
        );
        // The record starts after the book moves, at 2. Nf3.
        assert_eq!(
            s[0].0,
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
        );
        assert_eq!(s[0].1.as_deref(), Some("g1f3"));
        // Scores stay from the mover's side: White +0.35, Black -0.20.
        assert_eq!((s[0].2, s[1].2), (35, -20));
        // Black won: 0 for White to move, 1 for Black to move.
        assert_eq!((s[0].3, s[1].3), (0.0, 1.0));
        // a6 had no comment: it is in the record (6 plies) unscored, and
        // reading never yields it.
        assert_eq!(s.len(), 5);
        assert_eq!(
            (s[3].1.as_deref(), s[3].2),
            (Some("b5a4"), (MATE - 9) as i16)
        );
        assert_eq!(s[4].2, (-MATE + 8) as i16);
        let mut bytes = Vec::new();
        convert(pgn.as_bytes(), &mut bytes).unwrap();
        let game = Game::read(&mut bytes.as_slice()).unwrap().unwrap();
        assert_eq!(game.plies[3].score, NO_SCORE);
    }

    #[test]
    fn fen_start_chess960_and_multiline_comments() {
        let pgn = r#"[Variant "Chess960"]
[FEN "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 9"]
[SetUp "1"]
[Result "1/2-1/2"]

9. O-O {+0.10/10
[not a tag] 0.3s} O-O-O {-0.05/9 0.3s} 1/2-1/2
"#;
        let (summary, s) = samples(pgn);
        assert_eq!(summary.games, 1, "{summary:?}");
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].2, 10);
        assert_eq!(s[1].2, -5);
        assert_eq!(s[0].3, 0.5);
        // Chess960 castling: king takes rook.
        assert_eq!(s[0].1.as_deref(), Some("e1g1"));
        let record = s[1].0.clone();
        assert!(record.starts_with("r3k2r/8/8/8/8/8/8/R4RK1 b "), "{record}");
        // The record keeps the game's Chess960 castling, though this start
        // reads as a standard one too.
        let mut bytes = Vec::new();
        convert(pgn.as_bytes(), &mut bytes).unwrap();
        let game = Game::read(&mut bytes.as_slice()).unwrap().unwrap();
        assert_eq!(game.start.castles().mode(), CastlingMode::Chess960);
    }

    #[test]
    fn illegal_moves_skip_the_game_only() {
        let pgn = "[Result \"1-0\"]\n\n1. e4 {+0.1/1} e4 {0.0/1} 1-0\n\n[Result \"1-0\"]\n\n1. d4 {+0.2/1} 1-0\n";
        let (summary, s) = samples(pgn);
        assert_eq!((summary.games, summary.skipped), (1, 1));
        assert_eq!(s[0].2, 20);
        // White won, White to move: a win for the mover.
        assert_eq!(s[0].3, 1.0);
    }
}
