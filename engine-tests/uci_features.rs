//! Transcripts for what players and bot operators configure: MultiPV,
//! `info currmove`, the strength limit, `go mate`, `go searchmoves`, `d`.

mod common;

use std::collections::HashSet;
use std::time::Duration;

use common::*;
use shakmaty::{CastlingMode, Chess};

/// The `multipv k` lines of the deepest iteration in `lines`, in order.
fn deepest_lines(lines: &[String]) -> Vec<(usize, String, i64)> {
    let field = |line: &str, name: &str| -> Option<String> {
        let mut words = line.split_whitespace();
        words.find(|w| *w == name)?;
        words.next().map(str::to_string)
    };
    let with_multipv: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains(" multipv ") && l.contains(" pv "))
        .collect();
    let deepest = with_multipv
        .iter()
        .filter_map(|l| field(l, "depth")?.parse::<i32>().ok())
        .max()
        .expect("multipv lines");
    with_multipv
        .iter()
        .filter(|l| field(l, "depth").as_deref() == Some(deepest.to_string().as_str()))
        .map(|l| {
            let k = field(l, "multipv").unwrap().parse().unwrap();
            let first = l.split(" pv ").nth(1).unwrap().split_whitespace().next();
            let score = match field(l, "score").as_deref() {
                Some("cp") => l
                    .split(" score cp ")
                    .nth(1)
                    .and_then(|r| r.split_whitespace().next())
                    .unwrap()
                    .parse()
                    .unwrap(),
                Some("mate") => {
                    let n: i64 = l
                        .split(" score mate ")
                        .nth(1)
                        .and_then(|r| r.split_whitespace().next())
                        .unwrap()
                        .parse()
                        .unwrap();
                    if n > 0 {
                        100_000 - n
                    } else {
                        -100_000 - n
                    }
                }
                other => panic!("score {other:?} in {l}"),
            };
            (k, first.unwrap().to_string(), score)
        })
        .collect()
}

#[test]
fn multipv_reports_distinct_lines_best_first() {
    for threads in [1, 2] {
        let mut e = Engine::start();
        e.send(&format!("setoption name Threads value {threads}"));
        e.send("setoption name MultiPV value 4");
        e.send("position startpos moves e2e4 e7e5 g1f3");
        e.send("go depth 9");
        let out = e.bestmove(Duration::from_secs(60));
        let root = position(
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
            CastlingMode::Standard,
        );
        let best = check_search_output(&root, &out);
        let lines = deepest_lines(&out);
        let ks: Vec<usize> = lines.iter().map(|l| l.0).collect();
        assert_eq!(ks, vec![1, 2, 3, 4], "{out:?}");
        let firsts: HashSet<&String> = lines.iter().map(|l| &l.1).collect();
        assert_eq!(
            firsts.len(),
            4,
            "lines must start with distinct moves: {out:?}"
        );
        assert!(
            lines.windows(2).all(|w| w[0].2 >= w[1].2),
            "lines must be ordered best first: {lines:?}"
        );
        assert_eq!(best, lines[0].1, "bestmove is the first line");
        e.quit();
    }
}

#[test]
fn multipv_beyond_the_legal_moves_shows_each_move_once() {
    let mut e = Engine::start();
    e.send("setoption name MultiPV value 10");
    // Black has three king moves and nothing else.
    let fen = "7k/8/8/8/8/8/6PP/4R1K1 b - - 0 1";
    let root = position(fen, CastlingMode::Standard);
    let legal = shakmaty::Position::legal_moves(&root).len();
    e.send(&format!("position fen {fen}"));
    e.send("go depth 6");
    let out = e.bestmove(Duration::from_secs(30));
    check_search_output(&root, &out);
    let lines = deepest_lines(&out);
    assert_eq!(lines.len(), legal, "{out:?}");
    e.quit();
}

#[test]
fn multipv_ranks_the_mate_first() {
    let mut e = Engine::start();
    e.send("setoption name MultiPV value 3");
    // Back-rank mate: Re8# is the only mate.
    let fen = "6k1/5ppp/8/8/8/8/5PPP/4R1K1 w - - 0 1";
    e.send(&format!("position fen {fen}"));
    e.send("go depth 5");
    let out = e.bestmove(Duration::from_secs(30));
    let best = check_search_output(&position(fen, CastlingMode::Standard), &out);
    assert_eq!(best, "e1e8");
    let lines = deepest_lines(&out);
    assert!(
        out.iter().any(|l| l.contains("multipv 1 score mate 1 ")),
        "{out:?}"
    );
    assert!(lines[1].2 < 100_000 - 1, "only one mate in one: {lines:?}");
    e.quit();
}

#[test]
fn currmove_is_reported_after_the_first_second_only() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go movetime 300");
    let short = e.bestmove(Duration::from_secs(10));
    assert!(!short.iter().any(|l| l.contains("currmove")), "{short:?}");
    e.send("go movetime 2500");
    let out = e.bestmove(Duration::from_secs(20));
    check_search_output(&Chess::default(), &out);
    let current: Vec<&String> = out.iter().filter(|l| l.contains(" currmove ")).collect();
    assert!(!current.is_empty(), "no currmove in {out:?}");
    for line in current {
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = words.iter().position(|w| *w == "currmove").unwrap();
        assert!(
            play_uci(&Chess::default(), words[at + 1]).is_some(),
            "{line}"
        );
        assert_eq!(words[at + 2], "currmovenumber", "{line}");
        let n: usize = words[at + 3].parse().unwrap();
        assert!((1..=20).contains(&n), "{line}");
    }
    e.quit();
}

#[test]
fn limited_strength_plays_fast_legal_and_varied_moves() {
    let mut e = Engine::start();
    e.send("setoption name UCI_LimitStrength value true");
    e.send("setoption name UCI_Elo value 1350");
    e.send("position startpos moves e2e4 e7e5 g1f3 b8c6");
    let root = position(
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        CastlingMode::Standard,
    );
    let mut played = HashSet::new();
    for _ in 0..30 {
        e.send("ucinewgame");
        e.send("position startpos moves e2e4 e7e5 g1f3 b8c6");
        e.send("go wtime 60000 btime 60000");
        let out = e.bestmove(Duration::from_secs(10));
        // The node budget, not the clock, ends a weak search: no iteration
        // reported beyond it (counted by the engine, whatever the load).
        let budget = kiraly::strength::StrengthLimit::new(1350).nodes as i64;
        let most = out.iter().filter_map(|l| info_field(l, "nodes")).max();
        assert!(
            most.is_some_and(|n| n <= budget),
            "{most:?} nodes, budget {budget}: {out:?}"
        );
        played.insert(check_search_output(&root, &out));
    }
    assert!(
        played.len() >= 2,
        "a weak level should not always play one move: {played:?}"
    );
    e.quit();
}

#[test]
fn limited_strength_never_gives_away_a_queen() {
    let mut e = Engine::start();
    e.send("setoption name UCI_LimitStrength value true");
    e.send("setoption name UCI_Elo value 1350");
    // Black's queen on d4 hangs to the knight on f3: even the weakest level
    // takes it, as a weak human would.
    let fen = "r1b1kbnr/pppp1ppp/2n5/4p3/3qP3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 4";
    let root = position(fen, CastlingMode::Standard);
    for _ in 0..20 {
        e.send("ucinewgame");
        e.send(&format!("position fen {fen}"));
        e.send("go wtime 60000 btime 60000");
        let out = e.bestmove(Duration::from_secs(10));
        assert_eq!(check_search_output(&root, &out), "f3d4", "{out:?}");
    }
    e.quit();
}

#[test]
fn full_strength_is_the_default_and_levels_differ() {
    let mut e = Engine::start();
    e.send("uci");
    let decl = e.read_until(Duration::from_secs(5), |l| l == "uciok");
    for expected in [
        "option name MultiPV type spin default 1 min 1 max 500",
        "option name UCI_LimitStrength type check default false",
        "option name UCI_Elo type spin default 1350 min 1350 max 2850",
    ] {
        assert!(decl.iter().any(|l| l == expected), "missing '{expected}'");
    }
    let nodes_at = |e: &mut Engine, setup: &[&str]| -> u64 {
        for s in setup {
            e.send(s);
        }
        // A fresh table and histories: the count depends on the level only.
        e.send("ucinewgame");
        e.send("position startpos");
        e.send("go wtime 20000 btime 20000");
        let out = e.bestmove(Duration::from_secs(10));
        let line = out.iter().rev().find(|l| l.contains(" nodes ")).unwrap();
        line.split(" nodes ")
            .nth(1)
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let weak = nodes_at(
        &mut e,
        &[
            "setoption name UCI_LimitStrength value true",
            "setoption name UCI_Elo value 1400",
        ],
    );
    let strong = nodes_at(&mut e, &["setoption name UCI_Elo value 1750"]);
    let full = nodes_at(&mut e, &["setoption name UCI_LimitStrength value false"]);
    assert!(weak < strong && strong < full, "{weak} {strong} {full}");
    // Each level keeps to its node budget.
    assert!(
        weak <= kiraly::strength::StrengthLimit::new(1400).nodes,
        "{weak}"
    );
    assert!(
        strong <= kiraly::strength::StrengthLimit::new(1750).nodes,
        "{strong}"
    );
    // A refused Elo keeps the last one: the same search as at 1750.
    e.send("setoption name UCI_Elo value 1000");
    let reply = e.read_until(Duration::from_secs(5), |l| l.starts_with("info string"));
    assert!(reply[0].contains("out of range"), "{reply:?}");
    let kept = nodes_at(&mut e, &["setoption name UCI_LimitStrength value true"]);
    assert_eq!(kept, strong, "UCI_Elo 1750 kept after a bad value");
    e.quit();
}

#[test]
fn d_prints_the_board_fen_and_key() {
    let mut e = Engine::start();
    e.send("position startpos moves e2e4");
    e.send("d");
    let out = e.read_until(Duration::from_secs(5), |l| l.starts_with("Checkers:"));
    assert!(out.iter().any(|l| l.contains("| P |")), "{out:?}");
    assert!(out
        .iter()
        .any(|l| l == "Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"));
    // The key is the Polyglot book key: the values published with the
    // Polyglot book format (the last one computed by python-chess's
    // chess.polyglot.zobrist_hash), en passant and castling cases included.
    for (moves, polyglot) in [
        ("", "463B96181691FC9C"),
        ("e2e4", "823C9B50FD114196"),
        ("e2e4 d7d5", "0756B94461C50FB0"),
        ("e2e4 d7d5 e4e5", "662FAFB965DB29D4"),
        ("e2e4 d7d5 e4e5 f7f5", "22A48B5A8E47FF78"),
        ("e2e4 d7d5 e4e5 f7f5 e1e2", "652A607CA3F242C1"),
        ("e2e4 d7d5 e4e5 f7f5 e1e2 e8f7", "00FDD303C946BDD9"),
        ("a2a4 b7b5 h2h4 b5b4 c2c4", "3C8123EA7B067637"),
        ("a2a4 b7b5 h2h4 b5b4 c2c4 b4c3 a1a2", "742EC75DA0E25EDC"),
    ] {
        e.send(&format!("position startpos moves {moves}"));
        e.send("d");
        let out = e.read_until(Duration::from_secs(5), |l| l.starts_with("Checkers:"));
        let key = out.iter().find_map(|l| l.strip_prefix("Key: ")).unwrap();
        assert_eq!(key, polyglot, "after {moves:?}");
    }
    e.quit();
}

#[test]
fn go_mate_and_searchmoves_follow_the_spec() {
    let mut e = Engine::start();
    // A mate in two of the matetrack suite: `go mate 2` proves it, also
    // while searching several lines.
    let fen = "2brrb2/8/p7/7Q/1p1kpPp1/1P1pN1K1/3P4/8 w - - 0 1";
    e.send("setoption name MultiPV value 2");
    e.send(&format!("position fen {fen}"));
    e.send("go mate 2");
    let out = e.bestmove(Duration::from_secs(60));
    check_search_output(&position(fen, CastlingMode::Standard), &out);
    assert!(
        out.iter().any(|l| l.contains("multipv 1 score mate 2 ")),
        "{out:?}"
    );
    // searchmoves keeps the root to the listed moves, also with MultiPV.
    e.send("setoption name MultiPV value 3");
    e.send("position startpos");
    e.send("go depth 6 searchmoves a2a3 h2h3");
    let out = e.bestmove(Duration::from_secs(30));
    let best = check_search_output(&Chess::default(), &out);
    assert!(best == "a2a3" || best == "h2h3", "{best}");
    let lines = deepest_lines(&out);
    let firsts: HashSet<&str> = lines.iter().map(|l| l.1.as_str()).collect();
    assert_eq!(firsts, HashSet::from(["a2a3", "h2h3"]), "{lines:?}");
    e.quit();
}

#[test]
fn show_wdl_adds_win_draw_loss_per_mille() {
    let mut e = Engine::start();
    e.send("uci");
    let decl = e.read_until(Duration::from_secs(5), |l| l == "uciok");
    assert!(decl
        .iter()
        .any(|l| l == "option name UCI_ShowWDL type check default false"));
    e.send("position startpos");
    e.send("go depth 6");
    let off = e.bestmove(Duration::from_secs(20));
    assert!(!off.iter().any(|l| l.contains(" wdl ")), "{off:?}");

    e.send("setoption name UCI_ShowWDL value true");
    let wdl_of = |line: &str| -> [u32; 3] {
        let rest = line.split(" wdl ").nth(1).expect("a wdl field");
        let v: Vec<u32> = rest
            .split_whitespace()
            .take(3)
            .map(|n| n.parse().unwrap())
            .collect();
        [v[0], v[1], v[2]]
    };
    // A level position, a won one (a queen up) and a mate in one.
    for (fen, check) in [
        (START, "level"),
        ("4k3/8/8/8/8/8/3Q4/4K3 w - - 0 1", "won"),
        ("6k1/5ppp/8/8/8/8/5PPP/4R1K1 w - - 0 1", "mate"),
        // Black's only move, Kb8, allows Rh8#: the mated side sees a loss.
        ("k7/8/1K6/8/8/8/8/7R b - - 0 1", "mated"),
    ] {
        e.send(&format!("position fen {fen}"));
        e.send("go depth 6");
        let out = e.bestmove(Duration::from_secs(20));
        check_search_output(&position(fen, CastlingMode::Standard), &out);
        let scored: Vec<&String> = out.iter().filter(|l| l.contains(" score ")).collect();
        assert!(!scored.is_empty());
        for line in &scored {
            let [w, d, l] = wdl_of(line);
            assert_eq!(w + d + l, 1000, "{line}");
            // The field sits right after the score, as Stockfish prints it.
            assert!(line.contains(&format!("wdl {w} {d} {l} nodes")), "{line}");
        }
        let [w, d, l] = wdl_of(scored.last().unwrap());
        // Every figure is the model's for the line's score and the root's
        // material.
        let material = kiraly::wdl::material_count(&position(fen, CastlingMode::Standard));
        for line in &scored {
            if let Some(cp) = line
                .split(" score cp ")
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
            {
                let (mw, md, ml) = kiraly::wdl::wdl(cp.parse().unwrap(), material);
                assert_eq!(wdl_of(line), [mw, md, ml], "{line}");
            }
        }
        match check {
            // A small edge for White at the start: more wins than losses.
            "level" => assert!(w > l && w.abs_diff(l) < 150 && d > 150, "{w} {d} {l}"),
            "won" => assert!(w > 950, "{w} {d} {l}"),
            "mate" => {
                assert_eq!(last_score(&out), "mate 1");
                assert_eq!([w, d, l], [1000, 0, 0]);
            }
            _ => {
                assert_eq!(last_score(&out), "mate -1");
                assert_eq!([w, d, l], [0, 0, 1000]);
            }
        }
    }
    e.quit();
}
