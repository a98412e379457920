//! `genfens`, OpenBench's request for self-play openings, through the binary:
//! the lines it prints, their legality, variety and reproducibility.

use std::collections::HashSet;
use std::process::{Command, Stdio};

use shakmaty::fen::Fen;
use shakmaty::EnPassantMode;
use shakmaty::{CastlingMode, Chess, Position};

mod common;

fn engine(input: &str) -> Vec<String> {
    common::run_engine(input)
}

/// The FENs of the `genfens` lines of a run; every line of output must be
/// one of them (nothing else is printed for this command).
fn genfens(args: &str) -> Vec<String> {
    let lines = engine(&format!("genfens {args}\nquit\n"));
    lines
        .iter()
        .map(|line| {
            line.strip_prefix("info string genfens ")
                .unwrap_or_else(|| panic!("unexpected line: {line}"))
                .to_string()
        })
        .collect()
}

fn legal(fen: &str) -> Chess {
    let parsed: Fen = fen.parse().unwrap_or_else(|e| panic!("{fen}: {e}"));
    let pos: Chess = parsed
        .into_position(CastlingMode::Standard)
        .unwrap_or_else(|e| panic!("{fen}: {e}"));
    assert!(!pos.legal_moves().is_empty(), "game over: {fen}");
    pos
}

#[test]
fn sixty_four_legal_distinct_reproducible_openings() {
    let first = genfens("64 seed 1 book None");
    assert_eq!(first.len(), 64);
    let distinct: HashSet<&String> = first.iter().collect();
    assert_eq!(distinct.len(), 64, "repeated openings");
    for fen in &first {
        let pos = legal(fen);
        // Eight random plies from the start position.
        assert_eq!(pos.fullmoves().get(), 5, "{fen}");
    }
    assert_eq!(genfens("64 seed 1 book None"), first);
    let other = genfens("64 seed 2 book None");
    assert_eq!(other.len(), 64);
    assert_ne!(other, first);
    let overlap = other.iter().filter(|f| distinct.contains(f)).count();
    assert!(overlap < 8, "seeds 1 and 2 share {overlap} openings");
}

/// Every position `plies` legal plies after `start`, as FENs (written as
/// `genfens` writes them).
fn reachable(start: &Chess, plies: usize) -> HashSet<String> {
    let mut frontier = vec![start.clone()];
    for _ in 0..plies {
        frontier = frontier
            .iter()
            .flat_map(|pos| {
                pos.legal_moves().into_iter().map(move |m| {
                    let mut next = pos.clone();
                    next.play_unchecked(m);
                    next
                })
            })
            .collect();
    }
    frontier
        .iter()
        .map(|pos| Fen::from_position(pos, EnPassantMode::Legal).to_string())
        .collect()
}

#[test]
fn openings_from_a_book() {
    let book = std::env::temp_dir().join(format!("genfens-book-{}.epd", std::process::id()));
    // Two book lines: after 1. e4 and after 1. d4 d5 (EPD with operations).
    std::fs::write(
        &book,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"e4\";\n\
         rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - id \"d4d5\";\n",
    )
    .unwrap();
    let lines = [
        legal("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"),
        legal("rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 1"),
    ];
    // Two random plies on top of a book line by default; `bookplies` sets
    // the number.
    for (extra, plies) in [("", 2), (" bookplies 3", 3)] {
        let args = format!("32 seed 7 book {}{extra}", book.display());
        let fens = genfens(&args);
        assert_eq!(fens.len(), 32);
        assert_eq!(genfens(&args), fens);
        let after: Vec<HashSet<String>> = lines.iter().map(|l| reachable(l, plies)).collect();
        let mut from = [0; 2];
        for fen in &fens {
            legal(fen);
            let line = after
                .iter()
                .position(|set| set.contains(fen))
                .unwrap_or_else(|| panic!("{fen} is not {plies} plies after a book line"));
            from[line] += 1;
        }
        // Each line is drawn with probability one half: 32 openings from
        // one line alone would be a 1-in-2^31 chance.
        assert!(from.iter().all(|&n| n > 0), "{from:?} openings per line");
    }
    std::fs::remove_file(&book).unwrap();
}

#[test]
fn bad_requests_are_reported_and_the_engine_goes_on() {
    let lines = engine(
        "genfens\ngenfens 0 seed 1 book None\ngenfens 4 seed 1 book /nonexistent/book.epd\n\
         genfens 4 seed 1 book None frobnicate 3\ngenfens 2 seed 1 book None plies 2\nisready\nquit\n",
    );
    let problems = lines
        .iter()
        .filter(|l| l.starts_with("info string") && !l.starts_with("info string genfens "))
        .count();
    assert_eq!(problems, 4, "{lines:#?}");
    assert!(
        lines.iter().any(|l| l.contains("cannot read book")),
        "{lines:#?}"
    );
    assert!(lines.iter().any(|l| l.contains("frobnicate")), "{lines:#?}");
    let fens: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info string genfens "))
        .collect();
    assert_eq!(fens.len(), 2, "{lines:#?}");
    assert_eq!(lines.last().map(String::as_str), Some("readyok"));
}

/// OpenBench runs `<engine> "genfens N seed S book B" quit`: the arguments
/// are UCI lines. The output must match the same request over stdin.
#[test]
fn openbench_command_line_form() {
    let out = Command::new(env!("CARGO_BIN_EXE_kiraly"))
        .args(["genfens 16 seed 3 book None", "quit"])
        .stdin(Stdio::null())
        .output()
        .expect("run the engine");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let fens: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("info string genfens "))
        .map(String::from)
        .collect();
    assert_eq!(fens.len(), 16, "{text}");
    assert_eq!(fens, genfens("16 seed 3 book None"));
}
