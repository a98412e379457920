//! `genfens`, OpenBench's request for self-play openings, through the binary:
//! the lines it prints, their legality, variety and reproducibility.

use std::collections::HashSet;
use std::io::Write;
use std::process::{Command, Stdio};

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

/// Runs the engine on `input` (UCI lines) and returns its stdout lines.
fn engine(input: &str) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kiraly"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the engine");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().expect("engine exits");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect()
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
    let args = format!("32 seed 7 book {}", book.display());
    let fens = genfens(&args);
    assert_eq!(fens.len(), 32);
    assert_eq!(genfens(&args), fens);
    let mut from_e4 = 0;
    for fen in &fens {
        let pos = legal(fen);
        // Two random plies on top of the book line.
        let board = pos.board();
        if board.piece_at(shakmaty::Square::E4).is_some()
            && board.piece_at(shakmaty::Square::E2).is_none()
        {
            from_e4 += 1;
        }
    }
    assert!(
        (4..=28).contains(&from_e4),
        "{from_e4} of 32 from the e4 line"
    );
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
