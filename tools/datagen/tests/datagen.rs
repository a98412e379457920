//! Runs the `datagen` binary for two short games and checks every line it
//! writes.

use std::path::PathBuf;
use std::process::Command;

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

fn temp_path(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("datagen-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

fn datagen(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_datagen"))
        .args(args)
        .output()
        .expect("datagen runs")
}

/// Runs two games with the given seed and returns the lines written.
fn two_games(seed: &str, name: &str) -> Vec<String> {
    let path = temp_path(name);
    let out = datagen(&[
        "--games",
        "2",
        "--nodes",
        "300",
        "--threads",
        "1",
        "--hash",
        "1",
        "--seed",
        seed,
        "--output",
        path.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "datagen failed: {stderr}");
    assert!(stderr.contains("games 2 |"), "no summary: {stderr}");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    text.lines().map(String::from).collect()
}

struct Line {
    result: String,
}

fn check_line(line: &str) -> Line {
    let parts: Vec<&str> = line.split(" | ").collect();
    assert_eq!(parts.len(), 3, "bad line: {line}");
    let fen: Fen = parts[0].parse().unwrap_or_else(|e| panic!("{line}: {e}"));
    let pos: Chess = fen
        .into_position(CastlingMode::Standard)
        .unwrap_or_else(|e| panic!("illegal position in {line}: {e}"));
    assert!(!pos.is_check(), "position in check: {line}");
    assert!(!pos.legal_moves().is_empty(), "game over: {line}");
    let score: i32 = parts[1]
        .parse()
        .unwrap_or_else(|_| panic!("score not an integer: {line}"));
    assert!(score.abs() < 30_000, "mate score: {line}");
    assert!(
        ["1.0", "0.5", "0.0"].contains(&parts[2]),
        "bad result: {line}"
    );
    Line {
        result: parts[2].to_string(),
    }
}

#[test]
fn two_games_write_valid_lines() {
    let lines = two_games("11", "a");
    assert!(lines.len() >= 10, "only {} positions", lines.len());
    let checked: Vec<Line> = lines.iter().map(|l| check_line(l)).collect();

    // Each game's lines are written together, so the results form at most
    // two runs (one per game).
    let runs = 1 + checked
        .windows(2)
        .filter(|w| w[0].result != w[1].result)
        .count();
    assert!(runs <= 2, "results of one game differ: {runs} runs");

    // Same seed, same games (one thread: same order too).
    assert_eq!(two_games("11", "b"), lines);
}

#[test]
fn each_game_has_one_result() {
    // One game per run, so each file is exactly one game.
    for seed in ["1", "2", "3"] {
        let path = temp_path(&format!("one-{seed}"));
        let out = datagen(&[
            "--games",
            "1",
            "--nodes",
            "300",
            "--threads",
            "1",
            "--hash",
            "1",
            "--seed",
            seed,
            "--output",
            path.to_str().unwrap(),
        ]);
        assert!(out.status.success());
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let results: std::collections::HashSet<String> =
            text.lines().map(|l| check_line(l).result).collect();
        // An empty file would have no result at all: a game always leaves
        // some positions.
        assert_eq!(results.len(), 1, "seed {seed}: results {results:?}");
    }
}

#[test]
fn refuses_to_overwrite_without_append() {
    let path = temp_path("existing");
    std::fs::write(&path, "keep me\n").unwrap();
    let p = path.to_str().unwrap();
    let out = datagen(&["--games", "1", "--nodes", "300", "--output", p]);
    assert!(!out.status.success());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "keep me\n");
    let out = datagen(&[
        "--games",
        "1",
        "--nodes",
        "300",
        "--threads",
        "1",
        "--hash",
        "1",
        "--seed",
        "4",
        "--output",
        p,
        "--append",
    ]);
    assert!(out.status.success());
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(text.starts_with("keep me\n"));
    // The appended game is there, not only the kept line.
    assert!(text.lines().count() > 1, "nothing appended: {text:?}");
    for line in text.lines().skip(1) {
        check_line(line);
    }
}

#[test]
fn help_and_bad_arguments() {
    let out = datagen(&["--help"]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--games",
        "--positions",
        "--nodes",
        "--threads",
        "--book",
        "--seed",
    ] {
        assert!(help.contains(flag), "--help lacks {flag}");
    }
    let out = datagen(&["--nodes", "many"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn book_openings_and_position_target() {
    let book = temp_path("book.epd");
    std::fs::write(
        &book,
        "# two openings\n\
         rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - bm c4;\n\
         \n\
         r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3\n",
    )
    .unwrap();
    let path = temp_path("target");
    let out = datagen(&[
        "--positions",
        "30",
        "--nodes",
        "300",
        "--threads",
        "2",
        "--hash",
        "1",
        "--random-plies",
        "2",
        "--seed",
        "5",
        "--book",
        book.to_str().unwrap(),
        "--output",
        path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    std::fs::remove_file(&book).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() >= 30, "{} positions", lines.len());
    for line in lines {
        check_line(line);
    }

    let bad = temp_path("bad.epd");
    std::fs::write(&bad, "not a fen\n").unwrap();
    let out = datagen(&["--games", "1", "--book", bad.to_str().unwrap()]);
    std::fs::remove_file(&bad).unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains(":1:"));
}
