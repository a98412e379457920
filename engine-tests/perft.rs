//! Move generation against the verified perft suites in `engine-tests/data`
//! (copied from the shared data; see its SOURCES.md). Each position is run to
//! the deepest listed depth whose count stays under a node cap, so the whole
//! file finishes in seconds in release mode.

mod common;

use std::time::Duration;

use kiraly::perft::{divide, perft};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

struct Case {
    fen: String,
    depth: u32,
    nodes: u64,
}

fn load(file: &str, node_cap: u64) -> Vec<Case> {
    let path = format!("{}/engine-tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut cases = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut parts = line.split(';');
        let fen = parts.next().unwrap().trim().to_string();
        let counts: Vec<(u32, u64)> = parts
            .filter_map(|p| {
                let mut f = p.split_whitespace();
                let depth = f.next()?.strip_prefix('D')?.parse::<u32>().ok()?;
                let nodes = f.next()?.parse::<u64>().ok()?;
                Some((depth, nodes))
            })
            .collect();
        // The deepest count under the cap, or the shallowest one listed
        // (some tricky positions come with a single deep count only).
        let chosen = counts
            .iter()
            .filter(|&&(_, nodes)| nodes <= node_cap)
            .max()
            .or_else(|| counts.iter().min());
        let &(depth, nodes) = chosen.unwrap_or_else(|| panic!("no count: {line}"));
        cases.push(Case { fen, depth, nodes });
    }
    cases
}

#[allow(clippy::result_large_err)]
fn suite_position(fen: &str, mode: CastlingMode) -> Chess {
    let parsed: Fen = fen.parse().unwrap_or_else(|e| panic!("{fen}: {e}"));
    // The suite has legal-but-unreachable set-ups (a check no last move
    // could give); the engine accepts them too.
    parsed
        .into_position(mode)
        .or_else(|e| e.ignore_impossible_check())
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn run_suite(file: &str, node_cap: u64, mode: CastlingMode, expected_positions: usize) {
    let cases = load(file, node_cap);
    assert_eq!(cases.len(), expected_positions, "{file}");
    let mut failures = Vec::new();
    for case in &cases {
        let got = perft(&suite_position(&case.fen, mode), case.depth);
        if got != case.nodes {
            failures.push(format!(
                "{} depth {}: expected {}, got {got}",
                case.fen, case.depth, case.nodes
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn standard_suite() {
    run_suite("perft.epd", 100_000_000, CastlingMode::Standard, 131);
}

#[test]
fn tricky_and_double_check_suite() {
    run_suite("perft-extra.epd", 20_000_000, CastlingMode::Standard, 220);
}

#[test]
fn chess960_suite() {
    run_suite("perft960.epd", 5_000_000, CastlingMode::Chess960, 960);
}

#[test]
fn divide_sums_to_total_and_names_moves() {
    let pos = Chess::default();
    let (lines, total) = divide(&pos, 3, CastlingMode::Standard);
    assert_eq!(lines.len(), 20);
    assert_eq!(total, 8902);
    assert_eq!(lines.iter().map(|(_, n)| n).sum::<u64>(), 8902);
    assert!(lines.iter().any(|(m, n)| m == "e2e4" && *n == 600));
}

/// A sample of each suite through the binary: `position fen` (the engine's
/// own FEN parsing, Shredder-FEN castling under `UCI_Chess960`), then
/// `go perft`, whose total must match the suite's count.
#[test]
fn sample_through_the_binary_position_fen_and_go_perft() {
    let mut e = common::Engine::start();
    let mut checked = 0;
    for (file, every, chess960) in [
        ("perft.epd", 8, false),
        ("perft-extra.epd", 12, false),
        ("perft960.epd", 40, true),
    ] {
        e.send(&format!("setoption name UCI_Chess960 value {chess960}"));
        // Counts up to 200000 nodes keep each `go perft` to a fraction of a
        // second; positions with only deeper counts are passed over.
        let cases: Vec<Case> = load(file, 200_000)
            .into_iter()
            .filter(|c| c.nodes <= 200_000)
            .collect();
        assert!(cases.len() > 2 * every, "{file}: {} cases", cases.len());
        for case in cases.iter().step_by(every) {
            e.send(&format!("position fen {}", case.fen));
            e.send(&format!("go perft {}", case.depth));
            let out = e.read_until(Duration::from_secs(30), |l| {
                l.starts_with("Nodes searched") || l.starts_with("info string")
            });
            assert_eq!(
                out.last().unwrap(),
                &format!("Nodes searched: {}", case.nodes),
                "{file}: {} depth {}",
                case.fen,
                case.depth
            );
            checked += 1;
        }
        if chess960 {
            // Shredder-FEN castling rights in the sample.
            assert!(cases
                .iter()
                .step_by(every)
                .any(|c| c.fen.split_whitespace().nth(2) != Some("-")));
        }
    }
    assert!(checked >= 50, "{checked} positions through the binary");
    e.quit();
}
