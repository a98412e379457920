//! Syzygy tablebases through the real binary: the options, loading and its
//! errors, and play from positions the tables decide. Every move the engine
//! chooses is checked against the tables themselves (read here with
//! shakmaty-syzygy). The tables are the 3-piece ones in `data/syzygy`.

mod common;

use std::time::Duration;

use common::*;
use kiraly::tb::TB_WIN_BOUND;
use shakmaty::{CastlingMode, Chess, Position};
use shakmaty_syzygy::{Tablebase, Wdl};

const TIMEOUT: Duration = Duration::from_secs(30);

fn tables_dir() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/engine-tests/data/syzygy").to_string()
}

/// The engine with the test tables loaded.
fn engine_with_tables() -> Engine {
    let mut e = Engine::start();
    e.send(&format!("setoption name SyzygyPath value {}", tables_dir()));
    let lines = e.read_until(TIMEOUT, |l| l.starts_with("info string"));
    assert_eq!(
        lines.last().unwrap(),
        "info string found 5 tablebases, up to 3 pieces"
    );
    e
}

fn tablebase() -> Tablebase<Chess> {
    let mut tb = Tablebase::new();
    tb.add_directory(tables_dir()).unwrap();
    tb
}

/// Searches `fen` with `go`; returns the bestmove (checked for legality)
/// and the output.
fn search(e: &mut Engine, fen: &str, go: &str) -> (String, Vec<String>) {
    e.send(&format!("position fen {fen}"));
    e.send(go);
    let out = e.bestmove(TIMEOUT);
    let best = check_search_output(&position(fen, CastlingMode::Standard), &out);
    (best, out)
}

/// The tables' verdict on the position after `best`, for the side to move there.
fn wdl_after(fen: &str, best: &str) -> Wdl {
    let child = play_uci(&position(fen, CastlingMode::Standard), best).unwrap();
    tablebase().probe_wdl_after_zeroing(&child).unwrap()
}

/// A score of a won game: a mate, or a tablebase win (`cp` above every
/// evaluation, below the mates).
fn is_win(score: &str) -> bool {
    match score.split_once(' ') {
        Some(("mate", n)) => n.parse::<i32>().unwrap() > 0,
        Some(("cp", cp)) => cp.parse::<i32>().unwrap() >= TB_WIN_BOUND,
        _ => false,
    }
}

fn last_info(out: &[String]) -> &String {
    out.iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .expect("an info line")
}

fn tbhits(line: &str) -> Option<u64> {
    let rest = line.split(" tbhits ").nth(1)?;
    rest.split_whitespace().next()?.parse().ok()
}

#[test]
fn syzygy_options_are_declared() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.read_until(TIMEOUT, |l| l == "uciok");
    for expected in [
        "option name SyzygyPath type string default <empty>",
        "option name SyzygyProbeDepth type spin default 1 min 1 max 100",
        "option name Syzygy50MoveRule type check default true",
    ] {
        assert!(
            lines.iter().any(|l| l == expected),
            "missing '{expected}' in {lines:?}"
        );
    }
    e.send("setoption name SyzygyPath value <empty>");
    e.send("setoption name SyzygyPath value");
    e.is_ready();
    e.quit();

    // Values set, then bad values refused, then the set values seen at work
    // (the effects themselves are tested below): SyzygyProbeDepth 100 keeps
    // the search from probing positions with the tables' most pieces, and
    // Syzygy50MoveRule false makes a cursed win a win.
    let mut e = engine_with_tables();
    e.send("setoption name SyzygyProbeDepth value 100");
    e.send("setoption name Syzygy50MoveRule value false");
    for (bad, reason) in [
        ("setoption name SyzygyProbeDepth value 0", "out of range"),
        ("setoption name SyzygyProbeDepth value deep", "not a number"),
        (
            "setoption name Syzygy50MoveRule value maybe",
            "true or false",
        ),
    ] {
        e.send(bad);
        let reply = e.read_until(TIMEOUT, |l| l.starts_with("info string"));
        assert!(reply[0].contains(reason), "{bad}: {reply:?}");
    }
    let (_, out) = search(&mut e, "8/8/8/4k3/8/3p4/8/3QK3 w - - 0 1", "go depth 8");
    assert_eq!(
        tbhits(last_info(&out)),
        Some(0),
        "ProbeDepth 100 kept: {out:?}"
    );
    let (_, out) = search(&mut e, "8/8/8/4k3/8/8/8/KR6 w - - 90 100", "go depth 6");
    assert!(is_win(&last_score(&out)), "50MoveRule false kept: {out:?}");
    e.quit();
}

#[test]
fn a_bad_path_is_reported_and_the_engine_keeps_working() {
    let mut e = Engine::start();
    let missing = "/nonexistent/kiraly-tables";
    e.send(&format!("setoption name SyzygyPath value {missing}"));
    let lines = e.read_until(TIMEOUT, |l| l.starts_with("info string"));
    assert!(lines.last().unwrap().contains(missing), "{lines:?}");
    e.is_ready();
    let fen = "3R4/2k5/8/3K4/8/8/8/8 w - - 0 1";
    let (best, out) = search(&mut e, fen, "go depth 6");
    assert_eq!(tbhits(last_info(&out)), None, "{out:?}");
    // Without tables the search alone keeps KRvK won.
    assert_eq!(wdl_after(fen, &best), Wdl::Loss, "{best}");

    // Several directories: the missing one is reported, the other loads.
    let both = std::env::join_paths([missing, tables_dir().as_str()]).unwrap();
    e.send(&format!(
        "setoption name SyzygyPath value {}",
        both.to_str().unwrap()
    ));
    let lines = e.read_until(TIMEOUT, |l| l.starts_with("info string found"));
    assert!(lines[0].contains(missing), "{lines:?}");
    assert_eq!(
        lines.last().unwrap(),
        "info string found 5 tablebases, up to 3 pieces"
    );
    let (_, out) = search(&mut e, fen, "go depth 6");
    assert!(tbhits(last_info(&out)).unwrap() > 0, "{out:?}");

    // Setting the path again replaces the tables: none now.
    e.send("setoption name SyzygyPath value <empty>");
    let (_, out) = search(&mut e, fen, "go depth 6");
    assert_eq!(tbhits(last_info(&out)), None, "{out:?}");
    e.quit();
}

#[test]
fn won_positions_with_traps_keep_the_win() {
    let mut e = engine_with_tables();
    for fen in [
        // KRvK, the rook attacked: Rd7 hangs it, king moves leave it.
        "3R4/2k5/8/3K4/8/8/8/8 w - - 0 1",
        // KRvK, the rook attacked on the other side of the board.
        "8/8/8/8/8/2k5/3R4/K7 w - - 0 1",
        // KQvK: 12 of the 26 moves stalemate or hang the queen.
        "7k/5Q2/8/5K2/8/8/8/8 w - - 0 1",
        // KPvK: only Ke7 wins (d8=Q is met by Kxd8).
        "8/2kP4/5K2/8/8/8/8/8 w - - 0 1",
        // KQvK, the defender in the middle: 12 moves from mate.
        "8/8/8/8/8/2k5/8/K2Q4 w - - 0 1",
    ] {
        let (best, out) = search(&mut e, fen, "go depth 8");
        let score = last_score(&out);
        assert!(is_win(&score), "{fen}: {score}");
        assert_eq!(wdl_after(fen, &best), Wdl::Loss, "{fen}: {best}");
        assert!(tbhits(last_info(&out)).unwrap() > 0, "{out:?}");
    }
    let (best, _) = search(&mut e, "8/2kP4/5K2/8/8/8/8/8 w - - 0 1", "go depth 8");
    assert_eq!(best, "f6e7");
    e.quit();
}

#[test]
fn drawn_kpvk_is_a_draw_with_tables_and_a_legal_move_without() {
    // Black holds with Kd6 alone; every other move loses.
    let fen = "1K6/4k3/8/8/2P5/8/8/8 b - - 0 1";
    let mut e = engine_with_tables();
    let (best, out) = search(&mut e, fen, "go depth 10");
    assert_eq!(last_score(&out), "cp 0");
    assert_eq!(best, "e7d6");
    assert_eq!(wdl_after(fen, &best), Wdl::Draw);
    // The rook pawn with the defender in the corner.
    let corner = "k7/8/8/8/8/8/P7/K7 w - - 0 1";
    let (_, out) = search(&mut e, corner, "go depth 10");
    assert_eq!(last_score(&out), "cp 0");
    e.quit();

    let mut e = Engine::start();
    let (_, out) = search(&mut e, fen, "go depth 10");
    assert_eq!(tbhits(last_info(&out)), None);
    let (_, out) = search(&mut e, corner, "go depth 10");
    assert_eq!(tbhits(last_info(&out)), None);
    e.quit();
}

#[test]
fn the_fifty_move_rule_option_decides_cursed_wins() {
    // KRvK 30 plies from mate with the clock at 90: a draw under the rule.
    let fen = "8/8/8/4k3/8/8/8/KR6 w - - 90 100";
    let mut e = engine_with_tables();
    let (_, out) = search(&mut e, fen, "go depth 6");
    assert_eq!(last_score(&out), "cp 0");
    e.send("setoption name Syzygy50MoveRule value false");
    let (best, out) = search(&mut e, fen, "go depth 6");
    assert!(is_win(&last_score(&out)), "{out:?}");
    assert_eq!(wdl_after(fen, &best), Wdl::Loss);
    e.quit();
}

#[test]
fn probes_inside_the_search_count_tbhits() {
    // Four pieces, tables for three: the queen takes the pawn into KQvK.
    let fen = "8/8/8/4k3/8/3p4/8/3QK3 w - - 0 1";
    let mut e = engine_with_tables();
    let (best, out) = search(&mut e, fen, "go depth 8");
    assert_eq!(best, "d1d3");
    assert!(is_win(&last_score(&out)), "{out:?}");
    assert!(tbhits(last_info(&out)).unwrap() > 0, "{out:?}");
    // SyzygyProbeDepth beyond the search depth leaves 3-piece positions
    // unprobed only when they have the most pieces of any table.
    e.send("setoption name SyzygyProbeDepth value 100");
    let (_, out) = search(&mut e, fen, "go depth 8");
    assert_eq!(tbhits(last_info(&out)), Some(0), "{out:?}");
    e.quit();
}

#[test]
fn krvk_is_played_out_to_mate_from_both_sides() {
    // The engine plays both sides with a small node budget: the winner
    // must never shuffle. The DTZ here is 29 plies.
    let start = "8/8/8/4k3/8/8/8/KR6 w - - 0 1";
    let mut e = engine_with_tables();
    let mut pos = position(start, CastlingMode::Standard);
    let mut moves: Vec<String> = Vec::new();
    while !pos.is_game_over() {
        assert!(moves.len() < 40, "no mate after {moves:?}");
        if moves.is_empty() {
            e.send(&format!("position fen {start}"));
        } else {
            e.send(&format!("position fen {start} moves {}", moves.join(" ")));
        }
        e.send("go nodes 3000");
        let out = e.bestmove(TIMEOUT);
        let best = check_search_output(&pos, &out);
        pos = play_uci(&pos, &best).unwrap();
        moves.push(best);
    }
    assert!(pos.is_checkmate(), "{moves:?}");
    assert_eq!(pos.turn(), shakmaty::Color::Black);
    e.quit();
}
