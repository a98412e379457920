//! The move played is the move shown: in clocked self-play, before every
//! `bestmove` the last exact `info` line (no bound, `multipv 1` or none)
//! has a principal variation that starts with the move played. GUIs show
//! that line, and match runners write its score into the PGN comment of
//! the move, so a line of another move misleads every consumer.

mod common;

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
    let mut engine = Engine::start();
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

// One test, so that the batches run one after the other and do not slow
// each other down (several compete for the two cores of a CI machine).
#[test]
fn the_move_played_is_the_move_shown() {
    assert_shown(&[("Threads", "1")], 6);
    assert_shown(&[("Threads", "2")], 4);
    assert_shown(&[("MultiPV", "2")], 3);
    assert_shown(&[("UCI_LimitStrength", "true"), ("UCI_Elo", "1500")], 3);
}
