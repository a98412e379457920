//! Alpha-beta search: iterative deepening over a principal-variation search
//! with quiescence search at the leaves, transposition-table cutoffs and
//! ordering, check extension, and draw and mate-distance scoring.
//!
//! Each search thread owns a `Searcher` (its own history, killers and stack);
//! threads share only the transposition table and the atomic `Signals`.
//!
//! The files of this module, from the root down:
//! - `root`: iterative deepening and the root's lines (MultiPV and the
//!   choice of a limited strength);
//! - `aspiration`: the window and depth of each of an iteration's tries;
//! - `node`: the alpha-beta node search, step by step;
//! - `pruning`: the reduced searches that decide a node before its move loop
//!   (null move, ProbCut);
//! - `singular`: singular extension with multi-cut, and how far the table
//!   move is extended;
//! - `child`: making a move or the null move, its table entry prefetched;
//! - `rewards`: what a cutoff teaches the history tables;
//! - `lmr`: the late-move reduction table;
//! - `qsearch`: the quiescence search;
//! - `report`: the UCI `info` lines.
//!
//! What `go` asks for ([`Limits`]) lives beside the clock, in `time`.

mod aspiration;
mod child;
mod lmr;
mod move_pruning;
mod node;
mod pruning;
mod qsearch;
mod report;
mod rewards;
mod root;
mod singular;
mod solo;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use shakmaty::{CastlingMode, Move, Position};

use crate::board::Board;
use crate::correction::{CorrectionKeys, Corrections};
use crate::eval::Evaluator;
use crate::history::{ButterflyHistory, CaptureHistory, ContinuationHistory, CounterMoves};
use crate::nnue::AccumulatorStack;
use crate::output::Output;
use crate::score::TB_WIN_BOUND;
use crate::stack::Stack;
use crate::time::Limits;
use crate::tt::{TranspositionTable, TtData};

pub use report::{info_line, number_line};
pub use root::RootMove;
use root::RootState;
pub use solo::SoloSearch;
// The score constants live in `score`; the tools name them here too.
pub use crate::score::{INFINITY, MATE, MATE_BOUND, MAX_PLY};

pub const MAX_DEPTH: i32 = MAX_PLY as i32 - 1;

/// Flags the controller uses to steer a running search; read by every thread.
#[derive(Default)]
pub struct Signals {
    pub stop: AtomicBool,
    /// Set by `go ponder`, cleared by `ponderhit`: time limits are suspended
    /// and `bestmove` is held while it is set.
    pub pondering: AtomicBool,
    /// Milliseconds after the search start at which `ponderhit` arrived; the
    /// clock budget counts from there.
    pub ponderhit_ms: AtomicU64,
    /// Nodes searched by all threads (flushed in batches).
    pub nodes: AtomicU64,
    /// Tablebase probes by all threads (added one by one: a probe costs far
    /// more than an atomic addition).
    pub tbhits: AtomicU64,
}

/// The outcome of a search, as reported in `bestmove`: one line, that of
/// `best`, with its own score and depth (so that the line shown is the line
/// of the move played).
#[derive(Clone, Debug)]
pub struct SearchResult {
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    /// The score of `best` as the search computed it; [`info_line`] shows
    /// the tablebase value of a ranked root instead.
    pub score: i32,
    /// The iteration the line comes from: the last completed one, or the
    /// one cut short in which `best` took the lead (0: none reached a move).
    pub depth: i32,
    pub seldepth: usize,
    /// The principal variation, starting with `best` (`best` and a reply
    /// from the table when no iteration reached a move).
    pub pv: Vec<Move>,
}

/// One search (a `go`, a bench position, a tool's search): everything the
/// threads need, shared read-only. Its [`Job::context`] is what each thread
/// searches with.
pub struct Job {
    pub root: Board,
    /// Keys of the positions before the root, oldest first, for repetitions.
    pub game_keys: Vec<u64>,
    pub limits: Limits,
    pub signals: Arc<Signals>,
    pub tt: Arc<TranspositionTable>,
    pub start: Instant,
    pub castling_mode: CastlingMode,
    /// Syzygy tablebases, when `SyzygyPath` found some.
    pub tb: Option<crate::tb::Probe>,
    /// The net to evaluate with, as the engine's settings chose it (`Use
    /// NNUE`, `EvalFile`, the strength limit); `None`: the hand-crafted
    /// evaluation.
    pub net: Option<&'static crate::nnue::Network>,
    /// Where the `info` lines (and, from the thread pool, `bestmove`) go.
    pub output: Output,
}

impl Job {
    /// A search of `root` with no game before it, starting now, with the
    /// hand-crafted evaluation and no output: the callers set the rest.
    pub fn new(root: Board, limits: Limits, tt: Arc<TranspositionTable>) -> Job {
        Job {
            castling_mode: root.pos.castles().mode(),
            root,
            game_keys: Vec::new(),
            limits,
            signals: Arc::new(Signals::default()),
            tt,
            start: Instant::now(),
            tb: None,
            net: None,
            output: Output::Silent,
        }
    }

    /// What a thread searches this job with.
    pub fn context(&self) -> SearchContext<'_> {
        SearchContext {
            tt: &self.tt,
            signals: &self.signals,
            limits: &self.limits,
            start: self.start,
            castling_mode: self.castling_mode,
            game_keys: &self.game_keys,
            tb: self.tb.as_ref(),
            net: self.net,
            output: self.output,
        }
    }
}

/// Everything a thread needs to search one position, borrowed from its
/// [`Job`].
pub struct SearchContext<'a> {
    pub tt: &'a TranspositionTable,
    pub signals: &'a Signals,
    pub limits: &'a Limits,
    pub start: Instant,
    pub castling_mode: CastlingMode,
    /// Keys of the positions played before the root, oldest first.
    pub game_keys: &'a [u64],
    /// Syzygy tablebases, when `SyzygyPath` found some.
    pub tb: Option<&'a crate::tb::Probe>,
    /// The net to evaluate with; `None`: the hand-crafted evaluation.
    pub net: Option<&'static crate::nnue::Network>,
    /// Where the main thread's `info` lines go.
    pub output: Output,
}

/// Nodes a thread counts before it adds them to `Signals::nodes` and looks
/// at the clock and the signals.
const NODE_FLUSH: u64 = 1024;
// The tuned numbers of the search are in `parameters`, by name.

/// What a search thread learns about moves and the evaluation: kept from
/// search to search, forgotten at `ucinewgame`.
struct Histories {
    butterfly: ButterflyHistory,
    continuation: ContinuationHistory,
    captures: CaptureHistory,
    counter_moves: CounterMoves,
    corrections: Corrections,
}

impl Histories {
    fn new() -> Histories {
        Histories {
            butterfly: ButterflyHistory::new(),
            continuation: ContinuationHistory::new(),
            captures: CaptureHistory::new(),
            counter_moves: CounterMoves::new(),
            corrections: Corrections::new(),
        }
    }

    /// Forgets everything, in place: the tables are allocated once per
    /// thread, so a new game neither allocates nor faults their pages in
    /// again.
    fn clear(&mut self) {
        self.butterfly.clear();
        self.continuation.clear();
        self.captures.clear();
        self.counter_moves.clear();
        self.corrections.clear();
    }
}

/// What a thread counts while it searches, and whether it must stop.
struct Counters {
    nodes: u64,
    /// Nodes not yet added to `Signals::nodes`.
    unflushed: u64,
    /// Nodes after which the search stops: `go nodes`, or the budget of a
    /// limited strength once the first iteration has a move to choose.
    node_limit: u64,
    seldepth: usize,
    stopped: bool,
}

pub struct Searcher {
    pub thread_id: usize,
    /// Whether this thread prints `info` lines.
    pub verbose: bool,
    tables: Histories,
    root: RootState,
    counts: Counters,
    /// The current line, ply by ply.
    stack: Stack,
    /// Keys of the positions of the game and of the current line, oldest
    /// first, for repetitions.
    keys: Vec<u64>,
    /// Static evaluation with this thread's pawn hash table.
    evaluator: Evaluator,
    /// The net's accumulators along the current line, while the search
    /// evaluates with a net.
    accumulators: AccumulatorStack,
    /// The last `info` line sent, to repeat after `ponderhit` (a GUI drops
    /// the lines sent while pondering).
    pub last_report: String,
    /// The move and score of that line: the search's result is shown once
    /// more at the end when it is another.
    pub last_shown: Option<(Move, i32)>,
}

impl Searcher {
    pub fn new(thread_id: usize) -> Searcher {
        Searcher {
            thread_id,
            verbose: thread_id == 0,
            tables: Histories::new(),
            root: RootState {
                keys_len: 0,
                depth: 0,
                moves: Vec::with_capacity(256),
                every_legal_move: true,
                lines: 0,
                soft_scale: 1.0,
                best: None,
                lead_score: None,
                lead_line: Vec::with_capacity(MAX_PLY),
                excluded: Vec::with_capacity(256),
                selective: true,
            },
            counts: Counters {
                nodes: 0,
                unflushed: 0,
                node_limit: u64::MAX,
                seldepth: 0,
                stopped: false,
            },
            stack: Stack::new(),
            keys: Vec::with_capacity(1024),
            evaluator: Evaluator::new(),
            accumulators: AccumulatorStack::new(MAX_PLY),
            last_report: String::new(),
            last_shown: None,
        }
    }

    /// Nodes this thread searched in its last search.
    pub fn nodes(&self) -> u64 {
        self.counts.nodes
    }

    /// Forgets what was learned in earlier games (`ucinewgame`).
    pub fn clear(&mut self) {
        self.tables.clear();
        self.stack.clear_killers();
    }

    fn flush_nodes(&mut self, ctx: &SearchContext) {
        ctx.signals
            .nodes
            .fetch_add(self.counts.unflushed, Ordering::Relaxed);
        self.counts.unflushed = 0;
    }

    /// Counts a node and, every so often, looks at the clock and the signals.
    /// A stopped search unwinding (a re-search started on a stopped child's
    /// score) visits no more nodes, so a node limit is never passed.
    #[inline]
    fn visit(&mut self, ctx: &SearchContext) {
        if self.counts.stopped {
            return;
        }
        self.counts.nodes += 1;
        self.counts.unflushed += 1;
        if self.counts.nodes >= self.counts.node_limit {
            self.counts.stopped = true;
        }
        if self.counts.unflushed >= NODE_FLUSH {
            self.flush_nodes(ctx);
            if ctx.signals.stop.load(Ordering::Relaxed) || self.out_of_time(ctx) {
                self.counts.stopped = true;
            }
        }
    }

    fn out_of_time(&self, ctx: &SearchContext) -> bool {
        match ctx.limits.budget {
            Some(budget) if !ctx.limits.infinite => {
                !ctx.signals.pondering.load(Ordering::Relaxed) && budget_elapsed(ctx) >= budget.hard
            }
            _ => false,
        }
    }

    fn is_draw(&self, board: &Board) -> bool {
        if board.is_rule_draw() {
            return true;
        }
        let halfmoves = board.pos.halfmoves() as usize;
        // Repetition: a position seen before within the reversible moves.
        // Inside the search path once is enough (the side that can repeat can
        // repeat again); before the root it takes two earlier occurrences.
        let n = self.keys.len();
        let reach = halfmoves.min(n);
        let mut earlier = 0;
        let mut distance = 4;
        while distance <= reach {
            let idx = n - distance;
            if self.keys[idx] == board.key {
                if idx >= self.root.keys_len {
                    return true;
                }
                earlier += 1;
                if earlier >= 2 {
                    return true;
                }
            }
            distance += 2;
        }
        false
    }

    /// The static evaluation of the position at `ply`: the net's, from the
    /// accumulators of the line, while a net is in use; else the
    /// hand-crafted one.
    #[inline]
    fn evaluate(&mut self, board: &Board, ply: usize) -> i32 {
        if self.accumulators.net().is_none() {
            return self.evaluator.evaluate_hand_crafted(&board.pos);
        }
        // Unit tests check every incremental update against a refresh.
        #[cfg(test)]
        assert!(
            self.accumulators.agrees_with(ply, board.pos.board()),
            "accumulators of ply {ply} differ from a refresh"
        );
        let pos = &board.pos;
        let pieces = pos.board().occupied().count();
        crate::eval::finish_net_eval(pos, || self.accumulators.evaluate(ply, pos.turn(), pieces))
    }

    /// The slots of the position at `ply` in the correction tables: its
    /// pieces, and the moves of the two plies before it.
    #[inline]
    fn correction_keys(&self, board: &Board, ply: usize) -> CorrectionKeys {
        let previous = self.stack.previous_moves(ply);
        CorrectionKeys::new(board.pos.board(), board.pos.turn(), previous)
    }

    /// The evaluator's score (from the table entry `hit` when it holds one)
    /// and the score the search uses: that plus the correction learned for
    /// the position's slots `keys`, kept clear of table-win and mate scores.
    #[inline]
    fn static_eval(
        &mut self,
        board: &Board,
        ply: usize,
        keys: &CorrectionKeys,
        hit: Option<TtData>,
    ) -> (i32, i32) {
        let cached = hit
            .and_then(|h| h.eval)
            .filter(|_| crate::eval::is_clock_free(&board.pos));
        let raw = match cached {
            Some(raw) => raw,
            None => self.evaluate(board, ply),
        };
        let bound = TB_WIN_BOUND - 1;
        let corrected = raw + self.tables.corrections.get(keys);
        (raw, corrected.clamp(-bound, bound))
    }
}

/// The raw static evaluation to keep in the table entry of `board`: none
/// when it was not computed (in check) or depends on the halfmove clock,
/// which the key leaves out.
fn cacheable_eval(board: &Board, raw_eval: i32) -> Option<i32> {
    (raw_eval > -INFINITY && crate::eval::is_clock_free(&board.pos)).then_some(raw_eval)
}

/// Time counted against the budget: from the start, or from `ponderhit`.
fn budget_elapsed(ctx: &SearchContext) -> Duration {
    let since_start = ctx.start.elapsed();
    let ponderhit = Duration::from_millis(ctx.signals.ponderhit_ms.load(Ordering::Relaxed));
    since_start.saturating_sub(ponderhit)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `go nodes` limit holds exactly: a search stopped at the limit
    /// counts no node while it unwinds (re-searches started on a stopped
    /// child's score, ProbCut after a stopped quiescence search).
    #[test]
    fn a_node_limit_is_never_passed() {
        let tt = Arc::new(TranspositionTable::new(1).unwrap());
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        ] {
            let board = Board::new(crate::fen::parse_book_line(fen).unwrap());
            for limit in (100..4000).step_by(53) {
                let limits = Limits {
                    nodes: Some(limit),
                    ..Limits::default()
                };
                let job = Job::new(board.clone(), limits, Arc::clone(&tt));
                let mut searcher = Searcher::new(0);
                searcher.verbose = false;
                searcher.think(&job.root, &job.context());
                assert!(
                    searcher.nodes() <= limit,
                    "{fen}: {} > {limit}",
                    searcher.nodes()
                );
            }
        }
    }

    /// After `clear` a searcher searches as a new one: the same nodes to the
    /// same depth, whatever it learned before.
    #[test]
    fn a_cleared_searcher_searches_as_a_new_one() {
        let search = |searcher: &mut Searcher, fen: &str| {
            let board = Board::new(crate::fen::parse_book_line(fen).unwrap());
            let limits = Limits {
                depth: Some(9),
                ..Limits::default()
            };
            let tt = Arc::new(TranspositionTable::new(4).unwrap());
            let job = Job::new(board, limits, tt);
            searcher.think(&job.root, &job.context());
            searcher.nodes()
        };
        let first = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
        let mut searcher = Searcher::new(0);
        searcher.verbose = false;
        let new = search(&mut searcher, first);
        search(
            &mut searcher,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        );
        assert_ne!(
            search(&mut searcher, first),
            new,
            "the test needs a searcher that learns"
        );
        searcher.clear();
        assert_eq!(search(&mut searcher, first), new);
    }

    /// Searches with the net: every evaluation asserts (see `evaluate`) that
    /// the accumulators carried down the stack equal a refresh, through
    /// captures, castling, en passant, promotions and null moves.
    #[test]
    fn nnue_search_keeps_the_stack_accumulators_exact() {
        let net = crate::nnue::embedded().expect("the built-in net");
        let mut search = SoloSearch::new(1).unwrap();
        search.net = Some(net);
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        ] {
            let board = Board::new(crate::fen::parse_book_line(fen).unwrap());
            search.new_game();
            let result = search.search(&board, &[], 20_000, 20_000);
            assert!(result.best.is_some(), "{fen}");
        }
    }
}
