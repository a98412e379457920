//! Lazy SMP through the real binary: searches with several threads, rapid
//! command sequences in random order, and exits in the middle of a search.
//! Every `go` must be answered by exactly one legal `bestmove`.

mod common;

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use common::*;
// The engine's generator: deterministic, so a failure can be replayed.
use kiraly::rng::Rng;
use shakmaty::Chess;

/// The tests of this file each keep both cores busy; run one at a time so
/// that they do not slow each other down (the latency promises, quit within
/// 100 ms among them, are tested in `latency.rs`).
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Positions for the `go`s: the start, a middlegame, an endgame, and one
/// with a single legal reply.
const POSITIONS: [&str; 4] = [
    START,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "7k/8/8/8/8/8/6q1/7K w - - 0 1",
];

/// Sends `commands` (a `go` is recorded with the position it searches),
/// then ends any search and checks that the bestmoves match the `go`s one
/// for one, in order, each legal in its position.
struct Session {
    engine: Engine,
    /// The position each `go` sent so far searched.
    gos: Vec<Chess>,
    current: Chess,
    output: Vec<String>,
    /// `isready`s sent whose `readyok` has not been read yet.
    pending_readyok: usize,
}

impl Session {
    fn new() -> Session {
        let mut engine = Engine::start();
        engine.send("uci");
        engine.read_until(Duration::from_secs(5), |l| l == "uciok");
        Session {
            engine,
            gos: Vec::new(),
            current: Chess::default(),
            output: Vec::new(),
            pending_readyok: 0,
        }
    }

    fn send(&mut self, command: &str) {
        if command == "isready" {
            self.pending_readyok += 1;
        }
        self.engine.send(command);
    }

    fn set_position(&mut self, index: usize) {
        self.current = position(POSITIONS[index], shakmaty::CastlingMode::Standard);
        self.send(&format!("position fen {}", POSITIONS[index]));
    }

    fn go(&mut self, command: &str) {
        self.gos.push(self.current.clone());
        self.send(command);
    }

    /// Collects output up to a `readyok`, which the engine may send before
    /// the `bestmove` of a search still running.
    fn sync(&mut self) {
        self.send("isready");
        while self.pending_readyok > 0 {
            let lines = self
                .engine
                .read_until(Duration::from_secs(10), |l| l == "readyok");
            self.output.extend(lines);
            self.pending_readyok -= 1;
        }
    }

    /// Stops the search, then checks one legal bestmove per `go`.
    fn check(mut self) {
        self.send("stop");
        self.sync();
        let bestmoves: Vec<&String> = self
            .output
            .iter()
            .filter(|l| l.starts_with("bestmove"))
            .collect();
        assert_eq!(
            bestmoves.len(),
            self.gos.len(),
            "one bestmove per go; transcript:\n{}",
            self.engine.transcript.join("\n")
        );
        for (line, root) in bestmoves.iter().zip(&self.gos) {
            check_search_output(root, &[line.to_string()]);
        }
        self.engine.quit();
    }
}

#[test]
fn rapid_go_stop_cycles_with_two_threads() {
    let _serial = serial();
    let mut rng = Rng::new(0x5EED_0001);
    let mut session = Session::new();
    session.send("setoption name Threads value 2");
    for cycle in 0..400 {
        session.set_position(rng.below(POSITIONS.len()));
        match rng.below(4) {
            0 => session.go("go infinite"),
            1 => session.go("go movetime 3"),
            2 => session.go("go depth 5"),
            _ => session.go("go wtime 100 btime 100 winc 5 binc 5"),
        }
        if rng.below(2) == 0 {
            std::thread::sleep(Duration::from_millis(rng.below(4) as u64));
        }
        session.send("stop");
        if cycle % 50 == 0 {
            session.sync();
        }
    }
    session.check();
}

/// The reliability race: every command that touches a running search, in
/// random order and with random pauses, thousands of times.
#[test]
fn random_command_storm_keeps_one_bestmove_per_go() {
    let _serial = serial();
    let mut rng = Rng::new(0x5EED_0002);
    let mut session = Session::new();
    session.send("setoption name Threads value 2");
    let started = Instant::now();
    for step in 0..10_000 {
        match rng.below(10) {
            0 | 1 => {
                let i = rng.below(POSITIONS.len());
                session.set_position(i);
            }
            2 => session.go("go infinite"),
            3 => session.go("go movetime 2"),
            4 => session.go(&format!("go nodes {}", 1 + rng.below(5000))),
            5 => session.send("stop"),
            6 => session.send("isready"),
            7 => session.send("ucinewgame"),
            8 => {
                let n = 1 + rng.below(3);
                session.send(&format!("setoption name Threads value {n}"));
            }
            _ => {
                let mb = 1 + rng.below(8);
                session.send(&format!("setoption name Hash value {mb}"));
            }
        }
        if rng.below(8) == 0 {
            std::thread::sleep(Duration::from_micros(rng.below(2000) as u64));
        }
        if step % 100 == 0 {
            session.sync();
        }
    }
    session.check();
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "storm too slow"
    );
}

/// A second thread searches, and its nodes count: over a fixed-depth search
/// (whose last report comes at its end, so it counts every node searched)
/// the second thread uses CPU time of the same order as the main thread, and
/// the nodes per CPU tick stay near one thread's (a helper whose nodes went
/// uncounted would leave only the main thread's nodes over both threads'
/// time). Measured in CPU time per thread,
/// because on a shared machine (and with autogroup scheduling) the process
/// as a whole may get no more than one core, whatever its threads. The depth
/// grows until one thread's search takes a measurable time (ticks are
/// hundredths of a second), since a fast machine finishes depth 16 in a
/// fifth of a second and its tick counts are then too coarse to compare.
#[cfg(target_os = "linux")]
#[test]
fn a_second_thread_searches_and_its_nodes_count() {
    let _serial = serial();
    let search = |threads: usize, depth: u32| {
        let mut engine = Engine::start();
        let pid = engine.child.id();
        engine.send(&format!("setoption name Threads value {threads}"));
        engine.send(&format!("position fen {}", POSITIONS[1]));
        engine.is_ready();
        let before = thread_cpu_ticks(pid);
        engine.send(&format!("go depth {depth}"));
        let lines = engine.bestmove(Duration::from_secs(60));
        let after = thread_cpu_ticks(pid);
        engine.quit();
        let mut used: Vec<u64> = after
            .iter()
            .map(|(tid, t)| t - before.get(tid).copied().unwrap_or(0))
            .collect();
        used.sort_unstable_by(|a, b| b.cmp(a));
        let nodes = info_field(last_scored(&lines), "nodes").expect("a nodes count") as f64;
        (nodes, used)
    };
    let mut depth = 16;
    let (mut one_nodes, mut one) = search(1, depth);
    while one[0] < 50 && depth < 24 {
        depth += 2;
        (one_nodes, one) = search(1, depth);
    }
    let (two_nodes, two) = search(2, depth);
    eprintln!(
        "depth {depth}: 1 thread: {one_nodes} nodes, ticks {one:?}; \
         2 threads: {two_nodes} nodes, ticks {two:?}"
    );
    let cpu = |used: &[u64]| used.iter().sum::<u64>() as f64;
    assert!(
        one[0] >= 20 && two[0] >= 10,
        "too little CPU: {one:?} {two:?}"
    );
    assert!(
        two[1] as f64 >= 0.3 * two[0] as f64,
        "the second thread hardly ran: ticks per thread {two:?}"
    );
    // Nodes per CPU tick: measured 0.80-1.05 of one thread's; 0.66 with
    // the helper's nodes left out (the main thread alone, a little faster
    // for the helper's table entries, over both threads' time).
    let (per_cpu_one, per_cpu_two) = (one_nodes / cpu(&one), two_nodes / cpu(&two));
    assert!(
        per_cpu_two >= 0.7 * per_cpu_one,
        "nodes per CPU tick: {per_cpu_two:.0} with 2 threads, {per_cpu_one:.0} with 1 \
         (ticks {two:?}, {one:?})"
    );
}

#[test]
fn changing_threads_between_games_keeps_searching() {
    let _serial = serial();
    let mut session = Session::new();
    for threads in [1, 3, 2, 1, 4] {
        session.send(&format!("setoption name Threads value {threads}"));
        session.send("ucinewgame");
        session.set_position(1);
        session.go("go depth 6");
        session.sync();
        session.set_position(0);
        session.go("go movetime 50");
        session.sync();
    }
    session.check();
}
