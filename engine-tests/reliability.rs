//! Reliability through the real binary: failing search threads, memory that
//! stays within `Hash` plus a fixed overhead, refused table sizes, exits.

mod common;

use std::time::Duration;

use common::*;
use shakmaty::Chess;

const SECOND: Duration = Duration::from_secs(1);

/// Needs the panics `src/faults.rs` injects, which only a build with the
/// feature `fault-injection` has: `make test` runs it so (`cargo test
/// --release --features fault-injection --test reliability --target-dir
/// target/faults`).
#[cfg(feature = "fault-injection")]
#[test]
fn a_panicking_search_thread_still_gives_a_legal_bestmove() {
    for (target, threads) in [("main", 1), ("helper", 2), ("all", 3)] {
        let mut engine = Engine::start_with_env(&[("KIRALY_INJECT_PANIC", target)]);
        engine.send(&format!("setoption name Threads value {threads}"));
        for _ in 0..3 {
            engine.send("position startpos moves e2e4");
            engine.send("go movetime 50");
            let lines = engine.bestmove(5 * SECOND);
            let root = position(
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
                shakmaty::CastlingMode::Standard,
            );
            check_search_output(&root, &lines);
            // Every failing thread is reported, helpers too; a helper's
            // report comes before the bestmove, which waits for the helpers.
            let reports: Vec<&String> = lines
                .iter()
                .filter(|l| l.starts_with("info string internal error"))
                .collect();
            let expected = match target {
                "main" => vec!["info string internal error in the search; playing a legal move"],
                "helper" => vec!["info string internal error in search thread 1"],
                _ => vec![
                    "info string internal error in search thread 1",
                    "info string internal error in search thread 2",
                    "info string internal error in the search; playing a legal move",
                ],
            };
            let mut got: Vec<&str> = reports.iter().map(|l| l.as_str()).collect();
            got.sort();
            assert_eq!(got, expected, "{target}: {lines:?}");
        }
        // And it keeps serving.
        engine.is_ready();
        engine.quit();
    }
}

#[test]
fn memory_stays_within_hash_plus_a_fixed_overhead() {
    let mut engine = Engine::start();
    let pid = engine.child.id();
    engine.send("setoption name Threads value 2");
    let mut worst_overhead: f64 = 0.0;
    // Resizes up and down; `ucinewgame` clears, so touches, every entry.
    for mb in [64, 8, 128, 1, 32, 128, 16] {
        engine.send(&format!("setoption name Hash value {mb}"));
        engine.send("ucinewgame");
        let mut moves = String::new();
        // A short game against itself at a few milliseconds per move.
        let mut pos = Chess::default();
        for _ in 0..20 {
            engine.send(&format!("position startpos moves{moves}"));
            engine.send("go movetime 20");
            let lines = engine.bestmove(5 * SECOND);
            let best = check_search_output(&pos, &lines);
            if best == "0000" {
                break;
            }
            pos = play_uci(&pos, &best).unwrap();
            moves.push(' ');
            moves.push_str(&best);
        }
        engine.is_ready();
        let overhead = resident_mb(pid) - mb as f64;
        worst_overhead = worst_overhead.max(overhead);
    }
    eprintln!("worst resident memory above Hash: {worst_overhead:.1} MiB");
    assert!(
        worst_overhead < 32.0,
        "resident memory exceeds Hash by {worst_overhead:.1} MiB"
    );
    engine.quit();
}

#[test]
fn a_hash_size_that_cannot_be_allocated_keeps_the_old_table() {
    // With overcommit allowed (`vm.overcommit_memory = 1`) Linux may grant
    // 32 TiB of untouched address space, so the engine runs under an
    // address-space limit of 4 GiB: far more than it needs, far less than
    // the table asked for, on any setting.
    let mut engine = Engine::start_with_address_space_limit(4 << 20);
    engine.send("setoption name Hash value 32");
    engine.is_ready();
    // 32 TiB: more than the limit, and than any machine this runs on, gives.
    engine.send("setoption name Hash value 33554432");
    let lines = engine.read_until(5 * SECOND, |l| l.starts_with("info string"));
    let report = lines.last().unwrap();
    assert!(
        report.contains("cannot allocate") && report.contains("keeping the 32 MB table"),
        "{report}"
    );
    engine.send("position startpos");
    engine.send("go depth 6");
    let lines = engine.bestmove(10 * SECOND);
    check_search_output(&Chess::default(), &lines);
    engine.quit();
}

#[test]
fn end_of_input_mid_search_exits_with_status_zero() {
    let mut engine = Engine::start();
    engine.send("setoption name Threads value 2");
    engine.send("position startpos");
    engine.send("go infinite");
    engine.read_until(5 * SECOND, |l| l.starts_with("info depth 2"));
    // Closing stdin is the end of input.
    let Engine {
        mut child, stdin, ..
    } = engine;
    drop(stdin);
    let deadline = std::time::Instant::now() + 2 * SECOND;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "exit status {status}");
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no exit at end of input"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}
