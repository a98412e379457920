//! The move played is the move shown: in clocked self-play, before every
//! `bestmove` the last exact `info` line (no bound, `multipv 1` or none)
//! has a principal variation that starts with the move played. GUIs show
//! that line, and match runners write its score into the PGN comment of
//! the move, so a line of another move misleads every consumer.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::*;
use shakmaty::{Chess, Position};

/// Short openings, so that the games differ.
const OPENINGS: [&str; 6] = [
    "e2e4 e7e5 g1f3 b8c6",
    "d2d4 d7d5 c2c4 e7e6",
    "e2e4 c7c5 g1f3 d7d6",
    "d2d4 g8f6 c2c4 g7g6",
    "c2c4 e7e5 b1c3 g8f6",
    "e2e4 e7e6 d2d4 d7d5",
];

/// The clock of each side: base and increment in milliseconds. Short, so
/// that many searches end on the clock in the middle of an iteration, where
/// the move played may be one no completed iteration reported.
const BASE_MS: u64 = 1_000;
const INC_MS: u64 = 10;
/// Games are cut after this many plies: the searches are what is checked.
const MAX_PLIES: usize = 90;

/// The engine under test: this build, or `$MOVE_SHOWN_ENGINE` (to watch
/// another build, an older one for instance, fail these tests).
fn start_engine() -> Engine {
    let program =
        std::env::var("MOVE_SHOWN_ENGINE").unwrap_or_else(|_| env!("CARGO_BIN_EXE_kiraly").into());
    Engine::start_command(Command::new(program))
}

/// What a batch of games found.
struct Tally {
    searches: usize,
    mismatches: Vec<String>,
}

/// The move the last exact line of `lines` begins with (the last `multipv
/// 1` line under MultiPV); `None` when no such line was sent.
fn last_shown_move(lines: &[String]) -> Option<String> {
    lines
        .iter()
        .rev()
        .filter(|l| l.starts_with("info ") && l.contains(" score ") && l.contains(" pv "))
        .filter(|l| !l.contains(" lowerbound") && !l.contains(" upperbound"))
        .find(|l| info_field(l, "multipv").is_none_or(|k| k == 1))
        .and_then(|l| l.split(" pv ").nth(1))
        .and_then(|pv| pv.split_whitespace().next())
        .map(String::from)
}

/// Plays `games` clocked self-play games with `options` set and checks
/// every search's `bestmove` against its last exact line.
fn self_play(options: &[(&str, &str)], games: usize) -> Tally {
    let mut engine = start_engine();
    for (name, value) in options {
        engine.send(&format!("setoption name {name} value {value}"));
    }
    engine.is_ready();
    let mut tally = Tally {
        searches: 0,
        mismatches: Vec::new(),
    };
    for game in 0..games {
        engine.send("ucinewgame");
        engine.is_ready();
        let mut moves: Vec<String> = OPENINGS[game % OPENINGS.len()]
            .split_whitespace()
            .map(String::from)
            .collect();
        let mut pos = Chess::default();
        for m in &moves {
            pos = play_uci(&pos, m).expect("legal opening");
        }
        let mut clocks = [BASE_MS, BASE_MS];
        while moves.len() < MAX_PLIES && !pos.is_game_over() {
            let side = usize::from(pos.turn().is_black());
            engine.send(&format!("position startpos moves {}", moves.join(" ")));
            engine.send(&format!(
                "go wtime {} btime {} winc {INC_MS} binc {INC_MS}",
                clocks[0], clocks[1]
            ));
            let started = Instant::now();
            let lines = engine.bestmove(Duration::from_secs(10));
            let spent = started.elapsed().as_millis() as u64;
            let best = check_search_output(&pos, &lines);
            tally.searches += 1;
            let shown = last_shown_move(&lines);
            if shown.as_deref() != Some(best.as_str()) {
                let last_line = lines
                    .iter()
                    .rev()
                    .find(|l| l.contains(" pv "))
                    .cloned()
                    .unwrap_or_default();
                tally.mismatches.push(format!(
                    "{}: position startpos moves {}: shown {shown:?}, played {best}\n  {last_line}",
                    options
                        .iter()
                        .map(|(n, v)| format!("{n}={v}"))
                        .collect::<Vec<_>>()
                        .join(" "),
                    moves.join(" ")
                ));
            }
            // A flag ends the game; the check above is what counts here.
            if spent > clocks[side] {
                break;
            }
            clocks[side] = clocks[side] - spent + INC_MS;
            pos = play_uci(&pos, &best).expect("legal bestmove");
            moves.push(best);
        }
    }
    engine.quit();
    tally
}

fn assert_shown(options: &[(&str, &str)], games: usize) {
    let tally = self_play(options, games);
    eprintln!(
        "{options:?}: {} searches, {} mismatches",
        tally.searches,
        tally.mismatches.len()
    );
    assert!(tally.searches >= games * 20, "too few searches");
    assert!(
        tally.mismatches.is_empty(),
        "{} of {} searches played a move their last exact line did not show:\n{}",
        tally.mismatches.len(),
        tally.searches,
        tally.mismatches.join("\n")
    );
}

/// Checks one search's output: legal, and the last exact line shows the
/// move played. Returns the move.
fn check_shown(pos: &Chess, lines: &[String], what: &str) -> String {
    let best = check_search_output(pos, lines);
    assert_eq!(
        last_shown_move(lines).as_deref(),
        Some(best.as_str()),
        "{what}: bestmove {best} is not the move of the last exact line:\n{}",
        lines.join("\n")
    );
    best
}

/// Positions where an iteration often changes its mind, from the issue and
/// from games the code before the fix mis-shown.
const UNSETTLED: [&str; 8] = [
    "7k/1p4pp/3q2n1/3P4/8/4P3/3QB1PP/1r2B1K1 w - - 3 36",
    "8/1p2k3/2b5/8/6RP/4P3/5KP1/1r6 b - - 0 55",
    "2r3k1/1b2q2p/4ppp1/pP1p4/Rb1P3P/2rBP1B1/Q4PP1/3R2K1 w - - 7 31",
    "6k1/1b2bppp/1q2p3/n2n4/1p2N3/3PPN1P/1B3PP1/1Q1B2K1 b - - 11 26",
    "4q1k1/3b1pp1/2p2nnp/8/3N4/r3P2P/4BPP1/1RQN2K1 b - - 5 28",
    "8/6pp/4p3/3k1p2/r2P2nP/5K2/1P4P1/2BR4 w - - 3 33",
    "1r2r1k1/1p3pp1/p1pbq2p/P2p1b2/1n1P4/1QN1PN1P/1P2BPP1/R1R3K1 w - - 4 21",
    "3r2k1/p1p1n3/1p1q1p2/6p1/1n1P4/1P3QPb/PB2R1NP/6KB b - - 5 30",
];

/// `go infinite` and `go ponder` stopped by `stop` or turned by
/// `ponderhit` at varied moments, mostly inside an iteration: the move
/// played is the move shown.
#[test]
fn stopped_infinite_and_ponder_searches_show_their_move() {
    let mut engine = start_engine();
    engine.is_ready();
    for round in 0..64u64 {
        let fen = UNSETTLED[round as usize % UNSETTLED.len()];
        let pos = position(fen, shakmaty::CastlingMode::Standard);
        engine.send(&format!("position fen {fen}"));
        let wait = Duration::from_millis(15 + 17 * (round % 7));
        if round % 2 == 0 {
            engine.send("go infinite");
            std::thread::sleep(wait);
            engine.send("stop");
        } else {
            engine.send("go ponder wtime 400 btime 400");
            std::thread::sleep(wait);
            engine.send("ponderhit");
        }
        let lines = engine.bestmove(Duration::from_secs(10));
        check_shown(&pos, &lines, &format!("round {round}, {fen}"));
    }
    engine.quit();
}

/// A tablebase root (the tables narrow the root moves and show their
/// value) and a root with a single legal move, on a short clock.
#[test]
fn tablebase_and_single_move_roots_show_their_move() {
    let tables = concat!(env!("CARGO_MANIFEST_DIR"), "/engine-tests/data/syzygy");
    for threads in ["1", "2"] {
        let mut engine = start_engine();
        engine.send(&format!("setoption name SyzygyPath value {tables}"));
        engine.send(&format!("setoption name Threads value {threads}"));
        engine.is_ready();
        for fen in [
            "8/8/8/8/8/2k5/8/K6Q w - - 0 1",
            "8/8/8/4k3/8/8/3RK3/8 b - - 0 1",
            "7k/8/8/8/8/8/6q1/7K w - - 0 1",
        ] {
            let pos = position(fen, shakmaty::CastlingMode::Standard);
            for ms in [20, 200] {
                engine.send(&format!("position fen {fen}"));
                engine.send(&format!("go wtime {ms} btime {ms} winc 0 binc 0"));
                let lines = engine.bestmove(Duration::from_secs(10));
                check_shown(&pos, &lines, &format!("Threads {threads}, {fen}"));
            }
        }
        engine.quit();
    }
}

// One test, so that the batches run one after the other and do not slow
// each other down (several compete for the two cores of a CI machine).
#[test]
fn the_move_played_is_the_move_shown() {
    assert_shown(&[("Threads", "1")], 6);
    assert_shown(&[("Threads", "2")], 4);
    assert_shown(&[("MultiPV", "2")], 3);
    assert_shown(&[("UCI_LimitStrength", "true"), ("UCI_Elo", "1500")], 3);
}
