//! Protocol transcripts through the real binary: every reply is read from
//! the engine's stdout exactly as a GUI would read it, and every `bestmove`
//! and `pv` is checked for legality with shakmaty.

mod common;

use std::time::{Duration, Instant};

use common::*;
use std::sync::mpsc::RecvTimeoutError;

use shakmaty::{CastlingMode, Chess};

#[test]
fn uci_handshake_declares_conventional_options() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.read_until(Duration::from_secs(5), |l| l == "uciok");
    assert!(lines[0].starts_with("id name Kiraly"));
    assert!(lines.iter().any(|l| l.starts_with("id author ")));
    for expected in [
        "option name Hash type spin default 16 min 1 max",
        "option name Threads type spin default 1 min 1 max",
        "option name Move Overhead type spin default",
        "option name UCI_Chess960 type check default false",
        "option name Ponder type check default false",
        "option name Clear Hash type button",
    ] {
        assert!(
            lines.iter().any(|l| l.starts_with(expected)),
            "missing '{expected}' in {lines:?}"
        );
    }
    e.is_ready();
    e.quit();
}

#[test]
fn options_are_applied_and_bad_values_rejected() {
    let mut e = Engine::start();
    e.send("setoption name Hash value 32");
    e.send("setoption name Threads value 2");
    e.send("setoption name Move Overhead value 50");
    e.send("setoption name Clear Hash");
    e.send("setoption name UCI_Chess960 value false");
    e.is_ready();
    for bad in [
        "setoption name Hash value 0",
        "setoption name Hash value 100000000",
        "setoption name Threads value many",
        "setoption name Move Overhead value -5",
        "setoption name UCI_Chess960 value perhaps",
        "setoption name Nonexistent value 3",
        "setoption",
    ] {
        e.send(bad);
        let reply = e.read_until(Duration::from_secs(5), |l| l.starts_with("info string"));
        assert!(reply.last().unwrap().len() > "info string ".len());
    }
    e.send("position startpos");
    e.send("go depth 5");
    let out = e.bestmove(Duration::from_secs(20));
    check_search_output(&Chess::default(), &out);
    e.quit();
}

#[test]
fn go_variants_return_legal_moves() {
    let mut e = Engine::start();
    let root = position(
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        CastlingMode::Standard,
    );
    e.send("position startpos moves e2e4 e7e5 g1f3 b8c6");
    for go in [
        "go depth 4",
        "go nodes 20000",
        "go movetime 200",
        "go wtime 3000 btime 3000 winc 50 binc 50",
        "go wtime 2000 btime 2000 movestogo 5",
        "go mate 3 movetime 300",
        "go depth 30 nodes 5000",
    ] {
        let started = Instant::now();
        e.send(go);
        let out = e.bestmove(Duration::from_secs(20));
        check_search_output(&root, &out);
        if go == "go movetime 200" {
            // The whole movetime is used (less Move Overhead), never more.
            let took = started.elapsed();
            assert!(took >= Duration::from_millis(150), "{go} took {took:?}");
            assert!(took < Duration::from_millis(400), "{go} took {took:?}");
        }
    }
    e.send("go depth 3 searchmoves a2a3 h2h4");
    let out = e.bestmove(Duration::from_secs(20));
    let best = check_search_output(&root, &out);
    assert!(best == "a2a3" || best == "h2h4", "{best}");
    e.quit();
}

#[test]
fn tiny_clock_answers_in_time() {
    let mut e = Engine::start();
    e.send("position startpos moves d2d4 d7d5 c2c4");
    let root = position(
        "rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq - 0 2",
        CastlingMode::Standard,
    );
    for (clock, limit_ms) in [(50, 60), (200, 150), (1000, 300)] {
        let started = Instant::now();
        e.send(&format!("go wtime {clock} btime {clock}"));
        let out = e.bestmove(Duration::from_secs(5));
        let took = started.elapsed();
        check_search_output(&root, &out);
        assert!(
            took < Duration::from_millis(limit_ms),
            "clock {clock}: {took:?}"
        );
    }
    e.quit();
}

#[test]
fn stop_and_isready_answer_within_milliseconds_mid_search() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    let t = Instant::now();
    e.send("isready");
    e.read_until(Duration::from_secs(1), |l| l == "readyok");
    assert!(
        t.elapsed() < Duration::from_millis(50),
        "isready took {:?}",
        t.elapsed()
    );
    // No bestmove before stop.
    e.silent_after_info(Duration::from_millis(300));
    let t = Instant::now();
    e.send("stop");
    let out = e.bestmove(Duration::from_secs(1));
    assert!(
        t.elapsed() < Duration::from_millis(100),
        "stop took {:?}",
        t.elapsed()
    );
    check_search_output(&Chess::default(), &out);
    e.quit();
}

#[test]
fn ponder_waits_for_ponderhit_or_stop() {
    let mut e = Engine::start();
    let root = position(
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
        CastlingMode::Standard,
    );
    e.send("position startpos moves e2e4 e7e5");
    e.send("go ponder wtime 1000 btime 1000");
    // A timed search would end within a second; pondering must not.
    e.silent_after_info(Duration::from_millis(1500));
    let t = Instant::now();
    e.send("ponderhit");
    let out = e.bestmove(Duration::from_secs(2));
    assert!(
        t.elapsed() < Duration::from_millis(700),
        "{:?}",
        t.elapsed()
    );
    check_search_output(&root, &out);
    // GUIs drop what was sent while pondering: the move must still come
    // with a score and a PV after ponderhit.
    assert!(
        out.iter()
            .any(|l| l.contains(" score ") && l.contains(" pv ")),
        "no info after ponderhit: {out:?}"
    );

    e.send("go ponder wtime 1000 btime 1000");
    std::thread::sleep(Duration::from_millis(200));
    e.send("stop");
    let out = e.bestmove(Duration::from_secs(1));
    check_search_output(&root, &out);
    e.quit();
}

impl Engine {
    /// Like `silent_for`, but `info` lines are allowed.
    fn silent_after_info(&mut self, wait: Duration) {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Err(RecvTimeoutError::Timeout) => return,
                Ok(line) if line.starts_with("info") => self.transcript.push(line),
                Ok(line) => panic!("unexpected: {line}\n{}", self.transcript.join("\n")),
                Err(RecvTimeoutError::Disconnected) => panic!("engine died"),
            }
        }
    }
}

#[test]
fn finds_mate_in_one() {
    let mut e = Engine::start();
    let fen = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";
    e.send(&format!("position fen {fen}"));
    e.send("go depth 6");
    let out = e.bestmove(Duration::from_secs(10));
    assert_eq!(
        check_search_output(&position(fen, CastlingMode::Standard), &out),
        "d1d8"
    );
    assert_eq!(last_score(&out), "mate 1");
    e.quit();
}

#[test]
fn mate_suite_mates_in_two() {
    // The mate-in-2 problems of the shared matetrack suite (copied in).
    let path = format!("{}/engine-tests/data/mates.epd", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    let mut e = Engine::start();
    let mut tested = 0;
    for line in text.lines().filter(|l| l.contains("dm 2;")) {
        let fen: String = line
            .split_whitespace()
            .take(4)
            .collect::<Vec<_>>()
            .join(" ");
        let root = position(&format!("{fen} 0 1"), CastlingMode::Standard);
        e.send("ucinewgame");
        e.send(&format!("position fen {fen}"));
        e.send("go mate 2");
        let out = e.bestmove(Duration::from_secs(30));
        check_search_output(&root, &out);
        assert_eq!(last_score(&out), "mate 2", "{line}");
        tested += 1;
    }
    assert!(tested >= 10, "only {tested} mate-in-2 problems");
    e.quit();
}

#[test]
fn no_legal_move_answers_0000() {
    let mut e = Engine::start();
    // Checkmated (fool's mate) and stalemated roots.
    let mated = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
    let stalemate = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";
    for (fen, score) in [(mated, "mate 0"), (stalemate, "cp 0")] {
        e.send(&format!("position fen {fen}"));
        e.send("go depth 5");
        let out = e.bestmove(Duration::from_secs(5));
        assert_eq!(out.last().unwrap(), "bestmove 0000");
        assert_eq!(last_score(&out), score);
        // Infinite and ponder searches still wait for stop.
        e.send("go infinite");
        e.silent_after_info(Duration::from_millis(200));
        e.send("stop");
        assert_eq!(
            e.bestmove(Duration::from_secs(1)).last().unwrap(),
            "bestmove 0000"
        );
        e.send("go ponder wtime 100 btime 100");
        e.silent_after_info(Duration::from_millis(200));
        e.send("stop");
        assert_eq!(
            e.bestmove(Duration::from_secs(1)).last().unwrap(),
            "bestmove 0000"
        );
    }
    e.quit();
}

#[test]
fn bad_input_is_reported_and_state_kept() {
    let mut e = Engine::start();
    let valid = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    e.send(&format!("position fen {valid}"));
    for bad in [
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1".to_string(),
        "position fen 8/8/8/8/8/8/8/8 w - - 0 1".to_string(),
        "position fen totally not a fen".to_string(),
        "position startpos moves e2e4 e7e5 e1e3".to_string(),
        "position startpos moves e2e4 zz99".to_string(),
        "position".to_string(),
        "go depth nine".to_string(),
        "flibbertigibbet".to_string(),
        format!("garbage {}", "x".repeat(20_000)),
    ] {
        e.send(&bad);
        e.read_until(Duration::from_secs(5), |l| l.starts_with("info string"));
    }
    e.send("");
    e.send("   ");
    e.is_ready();
    e.send("go depth 4");
    let out = e.bestmove(Duration::from_secs(20));
    check_search_output(&position(valid, CastlingMode::Standard), &out);
    e.quit();
}

#[test]
fn go_before_position_uses_start_position() {
    let mut e = Engine::start();
    e.send("go depth 3");
    let out = e.bestmove(Duration::from_secs(10));
    check_search_output(&position(START, CastlingMode::Standard), &out);
    e.quit();
}

#[test]
fn chess960_castling_is_king_takes_rook() {
    let mut e = Engine::start();
    e.send("setoption name UCI_Chess960 value true");
    // White can castle either side; king on f1, rooks on b1 and g1.
    let fen = "1r3kr1/pppppppp/8/8/8/8/PPPPPPPP/1R3KR1 w GBgb - 0 1";
    e.send(&format!("position fen {fen} moves f1g1"));
    e.send("d");
    let out = e.read_until(Duration::from_secs(5), |l| l.starts_with("Fen:"));
    let fen_line = out.last().unwrap();
    assert!(
        fen_line.contains("1r3kr1/pppppppp/8/8/8/8/PPPPPPPP/1R3RK1 b"),
        "{fen_line}"
    );
    e.send(&format!("position fen {fen}"));
    e.send("go perft 1");
    let out = e.read_until(Duration::from_secs(5), |l| l.starts_with("Nodes searched"));
    assert!(out.iter().any(|l| l == "f1g1: 1"), "{out:?}");
    assert!(out.iter().any(|l| l == "f1b1: 1"), "{out:?}");
    e.quit();
}

#[test]
fn go_perft_prints_divide_like_stockfish() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go perft 3");
    let out = e.read_until(Duration::from_secs(10), |l| l.starts_with("Nodes searched"));
    assert_eq!(out.len(), 22);
    assert!(out.contains(&"e2e4: 600".to_string()));
    assert_eq!(out[20], "");
    assert_eq!(out[21], "Nodes searched: 8902");
    e.quit();
}

#[test]
fn end_of_input_exits_cleanly() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    let Engine {
        mut child, stdin, ..
    } = e;
    drop(stdin);
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success());
            break;
        }
        assert!(Instant::now() < deadline, "no exit after end of input");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn losing_side_takes_the_threefold_repetition() {
    let mut e = Engine::start();
    // K vs KQ: the queen and the black king shuffle so that, with Black to
    // move, Kg8-h8 makes the start position occur a third time.
    e.send("position fen 7k/8/8/8/8/8/8/2Q4K w - - 0 1 moves c1c2 h8g8 c2c1 g8h8 c1c2 h8g8 c2c1");
    e.send("go depth 5");
    let out = e.bestmove(Duration::from_secs(10));
    let root = position("6k1/8/8/8/8/8/8/2Q4K b - - 7 4", CastlingMode::Standard);
    assert_eq!(check_search_output(&root, &out), "g8h8");
    assert_eq!(last_score(&out), "cp 0");
    e.quit();
}

#[test]
fn ponder_move_stays_legal_when_an_iteration_is_cut_short() {
    // Regression: the best move of an interrupted iteration was paired with
    // the previous iteration's PV reply. Short movetimes cut iterations at
    // many different points.
    let mut e = Engine::start();
    let moves = "b1c3 b8c6 d2d4 g8f6 d4d5 c6e5 f2f4 e5g6 f4f5 g6e5 g1f3";
    let mut root = Chess::default();
    for m in moves.split_whitespace() {
        root = play_uci(&root, m).unwrap();
    }
    for movetime in 1..=60 {
        e.send(&format!("position startpos moves {moves}"));
        e.send(&format!("go movetime {movetime}"));
        let out = e.bestmove(Duration::from_secs(5));
        check_search_output(&root, &out);
    }
    e.quit();
}

#[test]
fn eval_prints_the_term_table_and_king_safety() {
    let mut e = Engine::start();
    e.send("position fen r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1 b - - 0 6 moves h7h6");
    e.send("eval");
    let out = e.read_until(Duration::from_secs(5), |l| {
        l.starts_with("Final evaluation")
    });
    let row = |name: &str| {
        out.iter()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no {name} row in {out:#?}"))
            .clone()
    };
    for term in [
        "Material",
        "Pawns",
        "Mobility",
        "Threats",
        "Passed",
        "King safety |",
        "Tempo",
        "Scaling",
        "Total",
    ] {
        let line = row(term);
        // A term row has numbers for White, Black and the total.
        assert!(line.matches('|').count() == 3, "{line}");
    }
    for king_row in [
        "zone attackers",
        "safe checks",
        "weak squares",
        "shelter",
        "storm",
        "danger",
    ] {
        let line = row(king_row);
        assert_eq!(line.matches('|').count(), 2, "{line}");
    }
    assert!(out.iter().any(|l| l.starts_with("Phase: ")), "{out:#?}");
    let last = out.last().unwrap();
    let value: f64 = last
        .trim_start_matches("Final evaluation: ")
        .trim_end_matches(" (white side)")
        .parse()
        .unwrap_or_else(|_| panic!("bad final line {last}"));
    assert!(value.abs() < 5.0, "{last}");
    // The engine still answers afterwards.
    e.is_ready();
    e.quit();
}

/// A large table is taken from fresh, lazily zeroed pages: `readyok` after
/// `Hash 1024` comes at once (zeroing a gigabyte up front takes seconds
/// here), and the table then works.
#[test]
fn large_hash_is_ready_at_once() {
    let mut e = Engine::start();
    e.send("setoption name Hash value 1024");
    let started = Instant::now();
    e.is_ready();
    let waited = started.elapsed();
    assert!(
        waited < Duration::from_millis(1000),
        "Hash 1024 took {waited:?}"
    );
    e.send("position startpos");
    e.send("go depth 6");
    let lines = e.bestmove(Duration::from_secs(20));
    assert!(lines.last().unwrap().starts_with("bestmove "));
    e.quit();
}
