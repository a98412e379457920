//! Random openings for self-play: the engine's `genfens` command (OpenBench's
//! datagen workloads) and `tools/datagen` share them.
//!
//! An opening is a start position (the standard one, or a random line of a
//! book) followed by uniformly random legal moves, kept only when a short
//! search finds it roughly balanced. Everything is a function of a seed and
//! an opening number, so a run can be repeated exactly.

// A BTreeSet, not a HashSet: std's HashSet seeds itself from the OS, which
// on Windows means bcryptprimitives.dll, absent from older Wine releases.
use std::collections::BTreeSet;
use std::path::Path;

use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode, Position};

use crate::board::Board;
use crate::fen::parse_book_line;
use crate::game::game_over;
use crate::rng::Rng;
use crate::search::SoloSearch;

/// Plays `plies` uniformly random legal moves from `start`. Returns the
/// position reached and the keys of the positions before it, or `None` when
/// the game ended on the way or at the end.
pub fn random_walk(start: &Chess, plies: usize, rng: &mut Rng) -> Option<(Board, Vec<u64>)> {
    let mut board = Board::new(start.clone());
    let mut history = Vec::with_capacity(plies + 512);
    for _ in 0..plies {
        if game_over(&board, &history).is_some() {
            return None;
        }
        let moves = board.pos.legal_moves();
        let m = moves[rng.below(moves.len())];
        history.push(board.key);
        board = board.play(m);
    }
    if game_over(&board, &history).is_some() {
        return None;
    }
    Some((board, history))
}

/// Reads a book: one position per line as FEN or EPD (the first four fields,
/// plus the move counters when the fifth and sixth fields are numbers).
/// Blank lines and lines starting with `#` are skipped.
pub fn load_book(path: &Path) -> Result<Vec<Chess>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read book {}: {e}", path.display()))?;
    let mut positions = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let pos =
            parse_book_line(line).map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))?;
        positions.push(pos);
    }
    if positions.is_empty() {
        return Err(format!("book {} holds no positions", path.display()));
    }
    Ok(positions)
}

/// Settings of `genfens`; the words after `book <path>` set them.
#[derive(Clone, Debug, PartialEq)]
pub struct OpeningConfig {
    /// Random plies from the start position.
    pub plies: usize,
    /// Random plies on top of a book line.
    pub book_plies: usize,
    /// Nodes of the screening search.
    pub screen_nodes: u64,
    /// Openings the screen scores beyond +-this (centipawns) are dropped.
    pub max_score: i32,
}

impl Default for OpeningConfig {
    fn default() -> OpeningConfig {
        OpeningConfig {
            plies: 8,
            book_plies: 2,
            screen_nodes: 1000,
            max_score: 300,
        }
    }
}

/// Attempts at one opening before `genfens` gives up on it.
const OPENING_TRIES: usize = 1000;

/// A `genfens` request: `genfens N seed S book <None|path> [extra words]`.
#[derive(Clone, Debug, PartialEq)]
pub struct GenFens {
    pub count: usize,
    pub seed: u64,
    pub book: Option<String>,
    pub config: OpeningConfig,
}

/// The words `genfens` accepts after `book`, for its messages.
pub const GENFENS_EXTRA: &str =
    "plies N (random plies from the start, default 8), bookplies N (on top of a book line, \
     default 2), nodes N (screening search, default 1000), maxscore CP (default 300)";

impl GenFens {
    /// Parses the words after `genfens`. Words OpenBench may add that are not
    /// ours are refused with a message rather than guessed at.
    pub fn parse(tokens: &[&str]) -> Result<GenFens, String> {
        let count = tokens
            .first()
            .and_then(|t| t.parse::<usize>().ok())
            .filter(|&n| n > 0)
            .ok_or("genfens: expected 'genfens N seed S book <None|file>' with N >= 1")?;
        let mut request = GenFens {
            count,
            seed: 0,
            book: None,
            config: OpeningConfig::default(),
        };
        let mut rest = tokens[1..].iter();
        while let Some(&word) = rest.next() {
            let value = rest
                .next()
                .ok_or_else(|| format!("genfens: '{word}' needs a value"))?;
            let number = |max: u64| {
                value
                    .parse::<u64>()
                    .ok()
                    .filter(|&v| v <= max)
                    .ok_or_else(|| format!("genfens: bad value '{value}' for '{word}'"))
            };
            match word.to_ascii_lowercase().as_str() {
                // OpenBench's seeds are plain integers; any text is hashed.
                "seed" => request.seed = value.parse().unwrap_or_else(|_| text_seed(value)),
                "book" => {
                    request.book = (!value.eq_ignore_ascii_case("none")).then(|| value.to_string())
                }
                "plies" => request.config.plies = number(200)? as usize,
                "bookplies" => request.config.book_plies = number(200)? as usize,
                "nodes" => request.config.screen_nodes = number(100_000_000)?.max(1),
                "maxscore" => request.config.max_score = number(30_000)? as i32,
                _ => {
                    return Err(format!(
                        "genfens: unknown word '{word}'; accepted: seed S, book <None|file>, {GENFENS_EXTRA}"
                    ))
                }
            }
        }
        Ok(request)
    }

    /// The openings, as FENs. Opening k depends only on the seed, k, the book
    /// and the settings; a position already produced is re-rolled.
    pub fn generate(&self) -> Result<Vec<String>, String> {
        let starts = match &self.book {
            Some(path) => load_book(Path::new(path))?,
            None => vec![Chess::default()],
        };
        let plies = match self.book {
            Some(_) => self.config.book_plies,
            None => self.config.plies,
        };
        // A small table: each screening search starts from a cleared one.
        let mut search = SoloSearch::new(1)?;
        let mut seen = BTreeSet::new();
        let mut fens = Vec::with_capacity(self.count);
        for k in 0..self.count as u64 {
            let mut rng = Rng::for_game(self.seed, k);
            let mut found = None;
            for _ in 0..OPENING_TRIES {
                let start = &starts[rng.below(starts.len())];
                let Some((board, history)) = random_walk(start, plies, &mut rng) else {
                    continue;
                };
                if seen.contains(&board.key) {
                    continue;
                }
                search.new_game();
                let nodes = self.config.screen_nodes;
                let result = search.search(&board, &history, nodes, nodes);
                if result.score.abs() <= self.config.max_score {
                    found = Some(board);
                    break;
                }
            }
            let board = found.ok_or_else(|| {
                format!(
                    "genfens: no balanced opening found for number {k} in {OPENING_TRIES} tries"
                )
            })?;
            seen.insert(board.key);
            fens.push(Fen::from_position(&board.pos, EnPassantMode::Legal).to_string());
        }
        Ok(fens)
    }
}

/// A seed from arbitrary text (FNV-1a), so that any seed word is accepted.
fn text_seed(text: &str) -> u64 {
    text.bytes().fold(0xCBF2_9CE4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn position(fen: &str) -> Chess {
        parse_book_line(fen).unwrap()
    }

    #[test]
    fn random_walk_is_deterministic_and_legal() {
        let start = Chess::default();
        for game in 0..50 {
            let a = random_walk(&start, 8, &mut Rng::for_game(1, game));
            let b = random_walk(&start, 8, &mut Rng::for_game(1, game));
            match (a, b) {
                (Some((ba, ha)), Some((bb, hb))) => {
                    assert_eq!(ba.key, bb.key);
                    assert_eq!(ha, hb);
                    assert_eq!(ha.len(), 8);
                    assert_eq!(ha[0], Board::new(Chess::default()).key);
                    assert_eq!(ba.pos.fullmoves().get(), 5);
                    assert!(game_over(&ba, &ha).is_none());
                }
                (None, None) => {}
                _ => panic!("game {game}: the walk is not deterministic"),
            }
        }
        // Different games mostly reach different positions.
        let keys: HashSet<u64> = (0..50)
            .filter_map(|g| random_walk(&start, 8, &mut Rng::for_game(1, g)))
            .map(|(b, _)| b.key)
            .collect();
        assert!(keys.len() >= 45, "{}", keys.len());
    }

    #[test]
    fn random_walk_rejects_finished_games() {
        // Black is checkmated: no walk from here.
        let mated = position("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
        assert!(random_walk(&mated, 0, &mut Rng::new(1)).is_none());
        assert!(random_walk(&mated, 4, &mut Rng::new(1)).is_none());
        // Fool's mate in two random moves from here: some walks end in mate.
        let before = position("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2");
        let ended = (0..2000)
            .filter(|&s| random_walk(&before, 1, &mut Rng::new(s)).is_none())
            .count();
        // 1 of Black's 30 moves mates.
        assert!((20..150).contains(&ended), "{ended}");
    }

    #[test]
    fn genfens_arguments() {
        let parse = |s: &str| GenFens::parse(&s.split_whitespace().collect::<Vec<_>>());
        let g = parse("64 seed 7 book None").unwrap();
        assert_eq!((g.count, g.seed, g.book.clone()), (64, 7, None));
        assert_eq!(g.config, OpeningConfig::default());
        let g = parse("3 seed 1 book books/x.epd plies 6 nodes 500 maxscore 200").unwrap();
        assert_eq!(g.book.as_deref(), Some("books/x.epd"));
        assert_eq!(
            (g.config.plies, g.config.screen_nodes, g.config.max_score),
            (6, 500, 200)
        );
        for bad in [
            "",
            "0 seed 1",
            "x seed 1",
            "4 seed",
            "4 seed 1 book",
            "4 frob 2",
            "4 plies many",
            "4 plies 1000",
        ] {
            assert!(parse(bad).is_err(), "'{bad}' was accepted");
        }
    }

    #[test]
    fn genfens_is_deterministic_distinct_and_balanced() {
        let request = |seed| GenFens {
            count: 12,
            seed,
            book: None,
            config: OpeningConfig {
                screen_nodes: 300,
                ..OpeningConfig::default()
            },
        };
        let a = request(1).generate().unwrap();
        assert_eq!(a, request(1).generate().unwrap());
        let b = request(2).generate().unwrap();
        assert_ne!(a, b);
        let distinct: HashSet<&String> = a.iter().collect();
        assert_eq!(distinct.len(), a.len());
        for fen in &a {
            let pos = parse_book_line(fen).unwrap();
            // Eight random plies from the start: move 5, White to move.
            assert_eq!(pos.fullmoves().get(), 5, "{fen}");
            assert!(!pos.legal_moves().is_empty());
        }
    }
}
