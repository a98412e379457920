//! `kiraly bench`: a fixed-depth search of a fixed set of positions, whose
//! total node count fingerprints the search (OpenBench checks it) and whose
//! speed is the engine's nodes per second.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use shakmaty::CastlingMode;

use crate::board::Board;
use crate::fen::parse_fen;
use crate::nnue::Network;
use crate::output::Output;
use crate::search::{Job, Searcher};
use crate::threadpool::{ThreadPool, SEARCH_STACK_BYTES};
use crate::time::{budget_for_movetime, Limits};
use crate::tt::TranspositionTable;

pub const DEFAULT_DEPTH: i32 = 11;

/// Openings, middlegames (quiet and tactical) and endgames.
pub const POSITIONS: [&str; 40] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "rnbqkb1r/pp1p1ppp/4pn2/2p5/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 0 4",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "rnbqkb1r/ppp2ppp/4pn2/3p4/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 2 4",
    "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 4 8",
    "r2q1rk1/pb1nbppp/1p2pn2/2pp4/3P4/1P1BPN2/PBPN1PPP/R2Q1RK1 w - - 2 10",
    "2rq1rk1/pb2bppp/1p2pn2/2pn4/3P4/1P2PN2/PB1NBPPP/2RQ1RK1 w - - 4 12",
    "r1b2rk1/2q1bppp/p2ppn2/1p6/3BPP2/2N2B2/PPP3PP/R2Q1R1K w - - 2 13",
    "2kr3r/pp1q1ppp/5n2/1Nb5/2Pp1B2/7Q/P4PPP/1R3RK1 w - - 0 1",
    "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
    "5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - 0 1",
    "r1b1kb1r/3q1ppp/pBp1pn2/8/Np3P2/5B2/PPP3PP/R2Q1RK1 w kq - 0 1",
    "5rk1/1b3p1p/pp3p2/3n1N2/1P6/P1qB1PP1/3Q3P/4R1K1 w - - 0 1",
    "r1bq1r2/pp4k1/4p2p/3pPp1Q/3N1R1P/2PB4/6P1/6K1 w - - 0 1",
    "3qrbk1/ppp1r2n/3pP2p/3P4/2P4P/1P3Q2/PB6/R4R1K w - - 0 1",
    "r4rk1/1bR1bppp/4pn2/1p2N3/1P6/P3P3/4BPPP/3R2K1 b - - 0 1",
    "2qr2k1/4b1p1/2p2p1p/1pP1p3/p2nP3/PbQNB1PP/1P3PK1/4RB2 b - - 0 1",
    "4r1k1/p1qr1p2/2pb1Bp1/1p5p/3P1n1R/1B3P2/PP3PK1/2Q4R w - - 0 1",
    "3r3k/3r1P1p/pp1Nn3/2pp4/7Q/6R1/Pq4PP/5RK1 w - - 0 1",
    "2rq4/1b2b1kp/p3p1p1/1p1nNp2/7P/1B2B1Q1/PP3PP1/3R2K1 w - - 0 1",
    "r3k2r/2p2p2/p2p1n2/1p2p3/4P2p/1PPPPp1q/1P5P/R1N2QRK b kq - 0 1",
    "2r1Rn1k/1p1q2pp/p7/5p2/3P4/1B4P1/P1P1QP1P/6K1 w - - 0 1",
    "rb3qk1/pQ3ppp/4p3/3P4/8/1P3N2/1P3PPP/3R2K1 w - - 0 1",
    "5rk1/p5pp/8/8/2Pbp3/1P4P1/7P/4RN1K b - - 0 1",
    "6k1/p5p1/5p2/2P2Q2/3pN2p/3PbK1P/7P/6q1 b - - 0 1",
    "1k6/5RP1/1P6/1K6/6r1/8/8/8 w - - 0 1",
    "8/3b2kp/4p1p1/pr1n4/N1N4P/1P4P1/1K3P2/3R4 w - - 0 1",
    "8/8/4k3/3p4/3P4/4K3/8/8 w - - 0 1",
    "8/8/8/4k3/8/8/3PK3/8 w - - 0 1",
    "8/5pk1/6p1/7p/7P/5KP1/5P2/8 w - - 0 1",
    "8/8/1p1k4/p1p5/P1P2K2/1P6/8/8 w - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "8/8/8/8/5k2/8/5K2/4Q3 w - - 0 1",
    "8/1r6/8/3k4/8/2RK4/8/8 w - - 0 1",
    "4k3/8/8/8/8/8/PPPPPPPP/4K3 w - - 0 1",
];

/// Searches every bench position to `depth` with one thread and a 16 MB
/// table cleared between positions, so the node count depends only on the
/// code. Prints the OpenBench summary line last.
/// `net`: evaluate with it instead of the hand-crafted evaluation.
pub fn run(depth: i32, net: Option<&'static Network>) -> (u64, u64) {
    on_search_stack(move || run_on_this_thread(depth, net))
}

/// Runs `body` on a thread with a search thread's stack: the caller may be a
/// main thread, whose stack is smaller on Windows than a deep search needs.
fn on_search_stack<T: Send>(body: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("bench".into())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn_scoped(scope, body)
            .expect("a thread for the bench")
            .join()
            // A panic in the bench is a bug; let it surface as one.
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

fn run_on_this_thread(depth: i32, net: Option<&'static Network>) -> (u64, u64) {
    let tt = Arc::new(TranspositionTable::new(16).expect("16 MB for the bench table"));
    let mut searcher = Searcher::new(0);
    searcher.verbose = false;
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let mut total_nodes = 0;
    // Only the searches are timed: clearing the table between positions is
    // bench bookkeeping, not engine speed.
    let mut searching = Duration::ZERO;
    for (i, fen) in POSITIONS.iter().enumerate() {
        tt.clear();
        searcher.clear();
        let job = Job {
            net,
            ..Job::new(bench_board(fen), limits.clone(), Arc::clone(&tt))
        };
        let started = Instant::now();
        let result = searcher.think(&job.root, &job.context());
        searching += started.elapsed();
        total_nodes += searcher.nodes();
        log::info!(
            "bench position {:2}: {} nodes, best {:?}",
            i + 1,
            searcher.nodes(),
            result.best
        );
    }
    let ms = searching.as_millis().max(1) as u64;
    let nps = total_nodes * 1000 / ms;
    (total_nodes, nps)
}

/// Searches every bench position for `movetime_ms` on the engine's own
/// thread pool (Lazy SMP, `threads` threads sharing one 64 MB table, no
/// output), and returns the nodes of all threads and their speed. At fixed
/// time the node count varies from run to run; this measures how the speed
/// scales with threads, `run` measures the code.
pub fn run_timed(threads: usize, movetime_ms: u64) -> (u64, u64) {
    let mut pool =
        ThreadPool::new(threads.max(1), Output::Silent).expect("a thread for the speed test");
    let tt = Arc::new(TranspositionTable::new(64).expect("64 MB for the speed test table"));
    let limits = Limits {
        budget: Some(budget_for_movetime(movetime_ms, 0)),
        ..Limits::default()
    };
    let mut total_nodes = 0;
    let mut searching = Duration::ZERO;
    for fen in POSITIONS {
        tt.clear();
        tt.new_search();
        let job = Job {
            net: default_net(),
            ..Job::new(bench_board(fen), limits.clone(), Arc::clone(&tt))
        };
        let signals = Arc::clone(&job.signals);
        let started = Instant::now();
        pool.start(job);
        // Every thread has added its nodes to the signals once it is done.
        pool.wait();
        searching += started.elapsed();
        total_nodes += signals.nodes.load(Ordering::Relaxed);
    }
    let ms = searching.as_millis().max(1) as u64;
    (total_nodes, total_nodes * 1000 / ms)
}

fn bench_board(fen: &str) -> Board {
    Board::new(parse_fen(fen, CastlingMode::Standard).expect("bench positions are valid"))
}

/// The evaluation a search uses at the engine's defaults: the built-in net
/// while `Use NNUE` is on by default, else the hand-crafted one (`None`).
pub fn default_net() -> Option<&'static Network> {
    if crate::nnue::ENABLED_BY_DEFAULT {
        crate::nnue::embedded()
    } else {
        None
    }
}
