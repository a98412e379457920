//! Alpha-beta search: iterative deepening over a principal-variation search
//! with quiescence search at the leaves, transposition-table cutoffs and
//! ordering, check extension, and draw and mate-distance scoring.
//!
//! Each search thread owns a `Searcher` (its own history, killers and stack);
//! threads share only the transposition table and the atomic `Signals`.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use shakmaty::{CastlingMode, Color, Move, MoveList, Position};

use crate::board::{move_to_uci, Board};
use crate::correction::{pawn_hash, CorrectionHistory};
use crate::eval::Evaluator;
use crate::history::{
    history_bonus, piece_to, ButterflyHistory, CaptureHistory, ContinuationHistory, CounterMoves,
};
use crate::movegen::noisy_moves;
use crate::movepick::{is_quiet, legal_tt_move, MovePicker, OrderingContext, ScoredMoves};
use crate::parameters as params;
use crate::score::{mate_in, mated_in, TB_WIN_BOUND};
use crate::see::see_ge;
use crate::stack::Stack;
use crate::strength::{Noise, StrengthLimit, CANDIDATE_LINES};
use crate::time::{IterationTimer, TimeBudget};
use crate::tt::{unpack_move, Bound, PackedMove, TranspositionTable, TtData};

// The score constants live in `score`; the tools name them here too.
pub use crate::score::{INFINITY, MATE, MATE_BOUND, MAX_PLY};

pub const MAX_DEPTH: i32 = MAX_PLY as i32 - 1;

/// What `go` asked for.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    /// No new iteration once this many nodes are spent (the "soft node
    /// limit" of data generation: whole iterations, so a position is not
    /// judged by a half-searched last depth).
    pub soft_nodes: Option<u64>,
    /// Stop once a mate in at most this many moves is found.
    pub mate: Option<u32>,
    pub budget: Option<TimeBudget>,
    /// `go infinite`: never stop on our own, and hold `bestmove` until `stop`.
    pub infinite: bool,
    /// Restrict the root to these moves (`go searchmoves`).
    pub searchmoves: Vec<Move>,
    /// Best lines to report (`MultiPV`); 0 counts as 1.
    pub multipv: usize,
    /// `UCI_LimitStrength`: the node budget and the choice among root lines.
    pub strength: Option<StrengthLimit>,
    /// `UCI_ShowWDL`: the root's material count, which with the score gives
    /// the `wdl` figures of each `info` line.
    pub wdl_material: Option<i32>,
}

impl Limits {
    /// Root lines the main thread searches each iteration: what `MultiPV`
    /// asks for, and enough to choose from when the strength is limited.
    pub fn lines_to_search(&self) -> usize {
        let candidates = self.strength.map_or(1, |_| CANDIDATE_LINES);
        self.multipv.max(candidates).max(1)
    }

    /// Whether the main thread's own result must be played: with several
    /// lines or a strength limit, a helper's single line is not comparable.
    pub fn main_thread_decides(&self) -> bool {
        self.lines_to_search() > 1 || self.strength.is_some()
    }
}

/// A move at the root, with what the iterations learned of it.
#[derive(Clone, Debug)]
pub struct RootMove {
    pub mv: Move,
    /// The score of its line in the last completed iteration; `-INFINITY`
    /// when it led none of the lines searched.
    pub score: i32,
    /// Its score in the iteration before.
    pub previous_score: i32,
    /// Its line in the last completed iteration, starting with `mv`.
    pub pv: Vec<Move>,
    /// Nodes spent under it in this search.
    pub nodes: u64,
}

impl RootMove {
    fn new(mv: Move) -> RootMove {
        RootMove {
            mv,
            score: -INFINITY,
            previous_score: -INFINITY,
            pv: Vec::new(),
            nodes: 0,
        }
    }

    /// Takes the line `pv` with its score.
    fn take_line(&mut self, score: i32, pv: Vec<Move>) {
        self.score = score;
        self.pv = pv;
    }
}

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

/// Everything a thread needs to search one position.
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
    /// The net to evaluate with (`Use NNUE`); `None`: the hand-crafted
    /// evaluation.
    pub net: Option<&'static crate::nnue::Network>,
}

const NODE_FLUSH: u64 = 1024;
/// Root moves are announced with `info currmove` once a search runs this long.
const CURRMOVE_AFTER: Duration = Duration::from_secs(1);
// The tuned numbers of the search are in `parameters`, by name.

/// The kind of a node, as a type parameter of `Searcher::search`: each kind
/// gets its own code, and the tests on it cost nothing.
trait NodeKind {
    /// Searched with an open window: its exact score is wanted.
    const PV: bool;
    const ROOT: bool;
}

/// The root: a PV node, with its own move list and reports.
struct Root;
/// A principal-variation node below the root.
struct Pv;
/// A node searched with a null window: only the side of a bound is asked.
struct NonPv;

impl NodeKind for Root {
    const PV: bool = true;
    const ROOT: bool = true;
}
impl NodeKind for Pv {
    const PV: bool = true;
    const ROOT: bool = false;
}
impl NodeKind for NonPv {
    const PV: bool = false;
    const ROOT: bool = false;
}

/// The alpha-beta window of a search call.
#[derive(Clone, Copy, Debug)]
struct Window {
    alpha: i32,
    beta: i32,
}

impl Window {
    fn new(alpha: i32, beta: i32) -> Window {
        Window { alpha, beta }
    }

    /// The null window below `beta`: whether the score reaches `beta`.
    fn null(beta: i32) -> Window {
        Window {
            alpha: beta - 1,
            beta,
        }
    }
}

/// What a node's parent expects of it. An expected cut node (its parent
/// expects to refute a move here) reduces its late moves more; node types
/// alternate down the tree, cut below all and all below cut. A PV node
/// expects no cut, and its children are PV or all nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    Cut,
    All,
}

impl Expect {
    /// What the child of such a node is expected to be.
    fn flip(self) -> Expect {
        match self {
            Expect::Cut => Expect::All,
            Expect::All => Expect::Cut,
        }
    }
}

/// What ProbCut needs to know of its node.
struct NodeFacts<'b> {
    board: &'b Board,
    ply: usize,
    expect: Expect,
    tt_hit: Option<TtData>,
    tt_move: PackedMove,
    raw_eval: i32,
    static_eval: i32,
}

/// The table move a singular search tests, with what it is tested against.
#[derive(Clone, Copy)]
struct SingularTest {
    mv: Move,
    /// The table's score for the move, adjusted to the node's ply.
    tt_score: i32,
    /// The node's depth.
    depth: i32,
    /// The node's beta: alternatives beating it cut the node (multi-cut).
    beta: i32,
}

/// The outcome of a singular search.
enum Singular {
    /// The table move alone is good: it is searched a ply deeper.
    Extend,
    /// Other moves beat beta too: the node is cut with this score.
    Cut(i32),
    No,
}

/// The moves a node tried without a cutoff (as many as fit), which lose
/// history when a later move cuts.
struct Tried {
    quiets: [Option<Move>; 64],
    quiet_count: usize,
    captures: [Option<Move>; 32],
    capture_count: usize,
}

impl Tried {
    fn new() -> Tried {
        Tried {
            quiets: [None; 64],
            quiet_count: 0,
            captures: [None; 32],
            capture_count: 0,
        }
    }

    /// Records `m`, quiet (as the search counts it) or not.
    fn push(&mut self, m: Move, quiet: bool) {
        if quiet && self.quiet_count < self.quiets.len() {
            self.quiets[self.quiet_count] = Some(m);
            self.quiet_count += 1;
        } else if !quiet && self.capture_count < self.captures.len() {
            self.captures[self.capture_count] = Some(m);
            self.capture_count += 1;
        }
    }

    fn quiets(&self) -> &[Option<Move>] {
        &self.quiets[..self.quiet_count]
    }

    fn captures(&self) -> &[Option<Move>] {
        &self.captures[..self.capture_count]
    }
}

/// The static evaluation `eval`, or the table's score in its place when
/// the entry's bound says the true score lies beyond it (a decided score
/// is left out).
fn tightened(eval: i32, hit: Option<TtData>) -> i32 {
    match hit {
        Some(hit) if hit.score.abs() < TB_WIN_BOUND => {
            let tighter = match hit.bound {
                Bound::Exact => true,
                Bound::Lower => hit.score > eval,
                Bound::Upper => hit.score < eval,
            };
            if tighter {
                hit.score
            } else {
                eval
            }
        }
        _ => eval,
    }
}

/// Whether a stored score with this bound settles the window.
#[inline]
fn bound_cuts(bound: Bound, score: i32, alpha: i32, beta: i32) -> bool {
    match bound {
        Bound::Exact => true,
        Bound::Lower => score >= beta,
        Bound::Upper => score <= alpha,
    }
}

/// What a search thread learns about moves and the evaluation: kept from
/// search to search, forgotten at `ucinewgame`.
struct Histories {
    butterfly: ButterflyHistory,
    continuation: ContinuationHistory,
    captures: CaptureHistory,
    counter_moves: CounterMoves,
    correction: CorrectionHistory,
}

impl Histories {
    fn new() -> Histories {
        Histories {
            butterfly: ButterflyHistory::new(),
            continuation: ContinuationHistory::new(),
            captures: CaptureHistory::new(),
            counter_moves: CounterMoves::new(),
            correction: CorrectionHistory::new(),
        }
    }
}

/// The root of the search in progress, and how it is searched.
struct RootState {
    /// Keys of the positions before the root: the first `keys_len` of
    /// `Searcher::keys`.
    keys_len: usize,
    /// Depth of the iteration in progress; extensions stop at twice it.
    depth: i32,
    /// The moves searched at the root (the legal moves, or those `go
    /// searchmoves` names): first the lines of the last completed
    /// iteration, best first, then the others.
    moves: Vec<RootMove>,
    /// How many of `moves` lead a line of the last completed iteration.
    lines: usize,
    /// The main thread's factor on the soft time limit, from how settled
    /// the iterations look (see `time::IterationTimer`).
    soft_scale: f64,
    /// The best move of the iteration so far (of the last one, before the
    /// first move is searched).
    best: Option<Move>,
    /// The score and line with which `best` took the lead in this iteration
    /// (`None` until a move beats alpha in it): when the iteration is cut
    /// short, the move is played with them, and shown with them.
    lead_score: Option<i32>,
    lead_line: Vec<Move>,
    /// Root moves left out of this search: the moves of the MultiPV lines
    /// already found in this iteration.
    excluded: Vec<Move>,
    /// False for `go mate`, which asks for a proof: the unsound prunings
    /// (null move, futility, reductions) are then left out, as they can hide
    /// a mate behind a zugzwang.
    selective: bool,
}

impl RootState {
    /// Line `k` of the last completed iteration, if it had so many.
    fn line(&self, k: usize) -> Option<&RootMove> {
        self.moves[..self.lines].get(k)
    }

    /// A completed iteration's lines (score and principal variation),
    /// in the order found: they become the lines, best first.
    fn rank(&mut self, mut found: Vec<(i32, Vec<Move>)>) {
        found.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
        for r in self.moves.iter_mut() {
            r.previous_score = r.score;
            r.score = -INFINITY;
        }
        self.lines = found.len();
        for (k, (score, pv)) in found.into_iter().enumerate() {
            // The moves of lines 0..k are in place, so this one is further on.
            if let Some(i) = self.moves.iter().position(|r| r.mv == pv[0]) {
                self.moves.swap(k, i);
                self.moves[k].take_line(score, pv);
            }
        }
    }

    /// The first line of an interrupted iteration becomes the first line,
    /// before the others of the last completed iteration.
    fn promote_first(&mut self, (score, pv): (i32, Vec<Move>)) {
        let Some(i) = self.moves.iter().position(|r| r.mv == pv[0]) else {
            return;
        };
        self.moves[..=i].rotate_right(1);
        if i >= self.lines {
            self.lines += 1;
        }
        let first = &mut self.moves[0];
        first.previous_score = first.score;
        first.take_line(score, pv);
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
    /// The net, while `Use NNUE` is on (read at the start of each search);
    /// its accumulators live on the stack.
    net: Option<&'static crate::nnue::Network>,
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
            net: None,
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
        self.tables = Histories::new();
        self.stack.clear_killers();
    }

    /// Iterative deepening from `root`. Returns the best move found (`None`
    /// only when the root has no legal move).
    ///
    /// One loop serves every kind of search: each iteration searches
    /// `wanted` lines, line k being the best move once the moves of lines
    /// 0..k are left out. That is one line for a plain search, the `MultiPV`
    /// lines, or the candidates a limited strength chooses among.
    pub fn think(&mut self, root: &Board, ctx: &SearchContext) -> SearchResult {
        crate::faults::maybe_panic(self.thread_id);
        self.counts.nodes = 0;
        self.counts.unflushed = 0;
        self.counts.node_limit = ctx.limits.nodes.unwrap_or(u64::MAX);
        self.counts.stopped = false;
        self.root.best = None;
        self.root.soft_scale = 1.0;
        self.root.selective = ctx.limits.mate.is_none();
        self.last_report.clear();
        self.last_shown = None;
        self.tables.butterfly.age();
        self.stack.clear_killers();
        self.keys.clear();
        self.keys.extend_from_slice(ctx.game_keys);
        self.root.keys_len = self.keys.len();
        self.net = ctx.net;
        if let Some(net) = self.net {
            match crate::nnue::Accumulator::refresh(net, root.pos.board()) {
                Some(acc) => self.stack[0].acc = acc,
                None => self.net = None,
            }
        }

        let mut legal = root.pos.legal_moves();
        if !ctx.limits.searchmoves.is_empty() {
            legal.retain(|m| ctx.limits.searchmoves.contains(m));
        }
        self.root.moves.clear();
        self.root
            .moves
            .extend(legal.iter().map(|&m| RootMove::new(m)));
        self.root.lines = 0;
        let mut result = SearchResult {
            best: legal.first().copied(),
            ponder: None,
            score: 0,
            depth: 0,
            seldepth: 0,
            pv: Vec::new(),
        };
        if legal.is_empty() {
            if self.verbose {
                let score = if root.pos.is_check() {
                    "mate 0"
                } else {
                    "cp 0"
                };
                crate::uci::send(&format!("info depth 0 score {score}"));
            }
            return result;
        }
        if self.thread_id != 0 && ctx.limits.strength.is_some() {
            // A limited-strength search is the main thread's alone: helpers
            // would add nodes beyond the budget that sets the strength.
            return result;
        }

        // With several lines or a strength limit, the main thread's lines
        // decide; otherwise a thread searches one line, and the best move
        // of an interrupted iteration counts (see `finish_line`).
        let lines_decide = self.thread_id == 0 && ctx.limits.main_thread_decides();
        let wanted = if lines_decide {
            ctx.limits.lines_to_search().min(legal.len())
        } else {
            1
        };
        let shown = ctx.limits.multipv.max(1).min(wanted);
        let max_depth = ctx.limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        // Helper threads start at staggered depths so they do not all search
        // the same tree in lock step.
        let first_depth = 1 + (self.thread_id % 2) as i32;
        let mut depth = first_depth.min(max_depth);
        let mut timer = IterationTimer::default();
        while depth <= max_depth {
            self.counts.seldepth = 0;
            let found = self.search_lines(root, depth, wanted, &mut result, ctx);
            if found.len() < wanted {
                // An interrupted iteration: keep the complete lines of the
                // last iteration, but a finished first line is the better
                // informed best move.
                if let Some(first) = found.into_iter().next() {
                    if self.root.lines > 0 {
                        self.root.promote_first(first);
                    }
                }
                break;
            }
            self.root.rank(found);
            if let Some(limit) = ctx.limits.strength {
                // The budget of a weak level never cuts the first iteration:
                // there must be lines to choose among.
                self.counts.node_limit = self.counts.node_limit.min(limit.nodes);
            }
            let best = &self.root.moves[0];
            let score = best.score;
            result.score = score;
            result.depth = depth;
            if !lines_decide {
                // How settled the search looks sets the soft time limit.
                let key = root_move_key(best.mv);
                self.root.soft_scale = timer.update(key, score, best.nodes, self.counts.nodes);
            }
            if self.verbose {
                self.report_lines(depth, shown, ctx);
            }
            if self.should_stop_iterating(depth, score, ctx) {
                break;
            }
            depth += 1;
        }
        self.flush_nodes(ctx);
        result.seldepth = self.counts.seldepth.max(result.depth as usize);
        if lines_decide {
            self.finish_lines(root, result, ctx)
        } else {
            self.finish_line(root, result, ctx)
        }
    }

    /// One iteration: the best `wanted` lines at `depth`, best first, fewer
    /// when the search stopped. The best move of the first line goes into
    /// `result` as soon as it is known, also when it is not finished.
    fn search_lines(
        &mut self,
        root: &Board,
        depth: i32,
        wanted: usize,
        result: &mut SearchResult,
        ctx: &SearchContext,
    ) -> Vec<(i32, Vec<Move>)> {
        let mut found: Vec<(i32, Vec<Move>)> = Vec::with_capacity(wanted);
        for k in 0..wanted {
            self.root.excluded.clear();
            self.root.excluded.extend(found.iter().map(|(_, pv)| pv[0]));
            // Line k of the last iteration is searched first, with an
            // aspiration window around its score.
            let previous = self.root.line(k).map(|l| (l.mv, l.score));
            self.root.best = previous.map(|(m, _)| m);
            self.root.lead_score = None;
            let score = self.aspiration_search(root, depth, previous.map_or(0, |(_, s)| s), ctx);
            if k == 0 {
                if let Some(best) = self.root.best {
                    result.best = Some(best);
                }
            }
            if self.counts.stopped {
                break;
            }
            let pv: Vec<Move> = self.stack.root_pv().collect();
            if pv.is_empty() {
                break;
            }
            found.push((score, pv));
        }
        self.root.excluded.clear();
        found
    }

    /// The result of a single-line search: the best move with its own score
    /// and line, from the last completed iteration or, when an interrupted
    /// iteration found a better one, from that iteration.
    fn finish_line(
        &mut self,
        root: &Board,
        mut result: SearchResult,
        ctx: &SearchContext,
    ) -> SearchResult {
        let completed = self.root.line(0).filter(|l| Some(l.mv) == result.best);
        if let Some(score) = self.root.lead_score.filter(|_| completed.is_none()) {
            // `search_lines` took the move that leads the interrupted
            // iteration: its score and line are those it took the lead with.
            result.score = score;
            result.depth = self.root.depth;
            result.pv = self.root.lead_line.clone();
        } else if let Some(line) = completed {
            result.pv = line.pv.clone();
        } else if result.best.is_some() {
            // Not even the first iteration reached a move: the move is the
            // first legal one, judged by the static evaluation.
            result.score = self.evaluate(root, 0);
        }
        result.ponder = match result.pv.get(1) {
            Some(&reply) => Some(reply),
            None => result.best.and_then(|m| self.ponder_from_tt(root, m, ctx)),
        };
        if result.pv.is_empty() {
            result.pv = result.best.into_iter().chain(result.ponder).collect();
        }
        result
    }

    /// The result of a search of several lines: the best line, or the line
    /// a limited strength chooses.
    fn finish_lines(
        &mut self,
        root: &Board,
        mut result: SearchResult,
        ctx: &SearchContext,
    ) -> SearchResult {
        let lines = &self.root.moves[..self.root.lines];
        let Some(first) = lines.first() else {
            // Not even one iteration finished: the move that leads the
            // interrupted first line, if any, is played, as in a single line.
            return self.finish_line(root, result, ctx);
        };
        let mut chosen = first;
        if let Some(limit) = ctx.limits.strength {
            let candidates: Vec<(Move, i32)> = lines.iter().map(|l| (l.mv, l.score)).collect();
            let pick = limit.choose(&candidates, Noise::from_clock().uniform());
            if let Some(line) = lines.iter().find(|l| Some(l.mv) == pick) {
                chosen = line;
            }
        }
        result.best = Some(chosen.mv);
        result.score = chosen.score;
        result.pv = chosen.pv.clone();
        result.ponder = chosen
            .pv
            .get(1)
            .copied()
            .or_else(|| self.ponder_from_tt(root, chosen.mv, ctx));
        result
    }

    /// The `info` lines of a completed iteration: its first `shown` lines,
    /// numbered when `MultiPV` asks for several.
    fn report_lines(&mut self, depth: i32, shown: usize, ctx: &SearchContext) {
        let nodes = ctx.signals.nodes.load(Ordering::Relaxed) + self.counts.unflushed;
        let multi = ctx.limits.multipv > 1;
        for k in 0..shown {
            let l = &self.root.moves[k];
            let mut line = info_line(
                depth,
                self.counts.seldepth,
                l.score,
                nodes,
                l.pv.iter(),
                ctx,
            );
            if multi {
                number_line(&mut line, k + 1);
            }
            crate::uci::send(&line);
            if k == 0 {
                self.last_report = line;
                self.last_shown = Some((l.mv, l.score));
            }
        }
    }

    /// Searches the root with a narrow window around the previous score,
    /// widening it on the side that fails until the score falls inside.
    fn aspiration_search(
        &mut self,
        root: &Board,
        depth: i32,
        previous: i32,
        ctx: &SearchContext,
    ) -> i32 {
        let mut delta = params::aspiration_delta();
        let (mut alpha, mut beta) =
            if depth >= params::aspiration_min_depth() && previous.abs() < MATE_BOUND {
                (
                    (previous - delta).max(-INFINITY),
                    (previous + delta).min(INFINITY),
                )
            } else {
                (-INFINITY, INFINITY)
            };
        self.root.depth = depth;
        loop {
            // A root in check is extended, as every move into check is.
            let extension = i32::from(root.pos.is_check());
            let score = self.search::<Root>(
                root,
                Window::new(alpha, beta),
                depth + extension,
                0,
                Expect::All,
                ctx,
            );
            if self.counts.stopped {
                return score;
            }
            if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITY);
            } else if score >= beta {
                beta = (score + delta).min(INFINITY);
            } else {
                return score;
            }
            delta += delta * params::aspiration_growth_pct() / 100;
            if delta > params::aspiration_max_delta() {
                alpha = -INFINITY;
                beta = INFINITY;
            }
        }
    }

    /// Decides, after a completed iteration, whether to start another one.
    fn should_stop_iterating(&self, depth: i32, score: i32, ctx: &SearchContext) -> bool {
        let limits = ctx.limits;
        if ctx.signals.stop.load(Ordering::Relaxed) {
            return true;
        }
        if let Some(n) = limits.mate {
            if score >= MATE - (2 * n as i32 - 1) {
                return true;
            }
        }
        if let Some(nodes) = limits.nodes.or(limits.strength.map(|l| l.nodes)) {
            if self.counts.nodes >= nodes {
                return true;
            }
        }
        if limits
            .soft_nodes
            .is_some_and(|soft| self.counts.nodes >= soft)
        {
            return true;
        }
        if limits.infinite || ctx.signals.pondering.load(Ordering::Relaxed) {
            return false;
        }
        // A mate seen well within the search depth is proven by the
        // full-width search: deeper iterations cannot change it.
        if score.abs() >= MATE_BOUND && depth > MATE - score.abs() + 2 {
            return true;
        }
        if let Some(budget) = limits.budget {
            // No new iteration past the soft limit, which the main thread
            // stretches or shrinks by how settled the search looks; helpers
            // search on until it stops them. An iteration started before it
            // may run on to the hard limit, and is then cut short.
            let soft = budget.soft.mul_f64(self.root.soft_scale);
            if !budget.use_all && self.thread_id == 0 && budget_elapsed(ctx) >= soft {
                return true;
            }
        }
        false
    }

    /// A reply to expect after `best`, from the table, when the PV has none.
    fn ponder_from_tt(&self, root: &Board, best: Move, ctx: &SearchContext) -> Option<Move> {
        let child = root.play(best);
        let hit = ctx.tt.probe(child.key, 1)?;
        unpack_move(hit.mv, &child.pos.legal_moves())
    }

    fn flush_nodes(&mut self, ctx: &SearchContext) {
        ctx.signals
            .nodes
            .fetch_add(self.counts.unflushed, Ordering::Relaxed);
        self.counts.unflushed = 0;
    }

    /// Counts a node and, every so often, looks at the clock and the signals.
    #[inline]
    fn visit(&mut self, ctx: &SearchContext) {
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
        let pos = &board.pos;
        let halfmoves = pos.halfmoves() as usize;
        if halfmoves >= 100 && !(pos.is_check() && pos.legal_moves().is_empty()) {
            return true;
        }
        if pos.is_insufficient_material() {
            return true;
        }
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

    // The search state proper lives in `self`; the arguments are what
    // changes from node to node. The node kind `N` (root, PV or not) is a
    // type, so its tests cost nothing and each kind gets its own code.
    //
    // The steps follow one another as below; each names the commit that
    // brought it and the gain measured then, where one was measured
    // (docs/search.md has the table and the method).
    fn search<N: NodeKind>(
        &mut self,
        board: &Board,
        window: Window,
        mut depth: i32,
        ply: usize,
        expect: Expect,
        ctx: &SearchContext,
    ) -> i32 {
        let Window {
            mut alpha,
            mut beta,
        } = window;
        debug_assert_eq!(N::PV, beta - alpha > 1, "a PV node has an open window");
        let pv_node = N::PV;
        let root = N::ROOT;
        let cut_node = expect == Expect::Cut;

        // Step 1. The horizon: the quiescence search settles the captures.
        // (A move into check was extended by its parent, step 13c.)
        self.stack[ply].pv_len = 0;
        if depth <= 0 {
            return self.qsearch(board, alpha, beta, ply, ctx);
        }
        self.visit(ctx);
        if self.counts.stopped {
            return 0;
        }
        let in_check = board.pos.is_check();
        let excluded = self.stack[ply].excluded;
        self.counts.seldepth = self.counts.seldepth.max(ply);

        // Step 2. Draws, the ply limit, and mate distance pruning: no line
        // from here beats a mate found nearer the root.
        if !root {
            if self.is_draw(board) {
                return 0;
            }
            if ply >= MAX_PLY - 1 {
                return self.evaluate(board, ply);
            }
            alpha = alpha.max(mated_in(ply));
            beta = beta.min(mate_in(ply + 1));
            if alpha >= beta {
                return alpha;
            }
        }

        // Step 3. Transposition table probe: an entry deep enough whose
        // bound settles the window ends a non-PV node. At the root the move
        // to try first is the best of the last iteration.
        let tt_hit = ctx.tt.probe(board.key, ply);
        let mut tt_move = tt_hit.map_or(PackedMove::NONE, |h| h.mv);
        if let Some(hit) = tt_hit.filter(|_| excluded.is_none()) {
            if !pv_node && hit.depth >= depth {
                let score = hit.score;
                if bound_cuts(hit.bound, score, alpha, beta) {
                    return score;
                }
            }
        }
        if root {
            if let Some(best) = self.root.best {
                tt_move = PackedMove::new(best);
            }
        }

        // Step 4. Tablebases, after a capture or pawn move: a win is a lower
        // bound (a mate may score higher), a loss an upper bound, a draw
        // exact. A bound that does not cut still bounds a PV node's score.
        let mut tb_floor = -INFINITY;
        let mut tb_ceiling = INFINITY;
        if let Some((score, bound)) = ctx
            .tb
            .filter(|_| !root && excluded.is_none())
            .and_then(|tb| tb.probe_search(&board.pos, depth, ply))
        {
            ctx.signals.tbhits.fetch_add(1, Ordering::Relaxed);
            if bound_cuts(bound, score, alpha, beta) {
                let data = TtData {
                    mv: PackedMove::NONE,
                    score,
                    depth: (depth + params::tb_store_depth_bonus()).min(MAX_DEPTH),
                    bound,
                    eval: None,
                };
                ctx.tt.store(board.key, ply, data);
                return score;
            }
            if pv_node && bound == Bound::Lower {
                tb_floor = score;
                alpha = alpha.max(score);
            } else if pv_node {
                tb_ceiling = score;
            }
        }

        // Step 5. Static evaluation (kept in the table: 68f01a7, bench 6 %
        // faster), corrected by what this pawn structure taught (correction
        // history, 1ac573e: +7.0 ± 22.1).
        let pawn_slot = pawn_hash(board.pos.board());
        let (raw_eval, static_eval) = if in_check {
            (-INFINITY, -INFINITY)
        } else {
            self.static_eval(board, ply, pawn_slot, tt_hit)
        };
        self.stack[ply].eval = static_eval;
        // Improving (d85dd9e: +9.3 ± 21.4): the side to move stands better
        // than at its previous turn. A cutoff is then likelier (reverse
        // futility pruning acts a ply sooner); when it is not, late quiet
        // moves are less likely to raise alpha (fewer are tried, and those
        // are reduced more).
        let two_back = self.stack.back(ply, 2).eval;
        let improving = !in_check && two_back > -INFINITY && static_eval > two_back;
        // The table's score bounds the true score more tightly than the
        // static evaluation does when its bound points the same way: the
        // pruning decisions below use the tighter estimate (5e4a6ab:
        // +20.5 ± 30.5).
        let eval = tightened(
            static_eval,
            tt_hit.filter(|_| !in_check && excluded.is_none()),
        );

        // Step 6. Internal iterative reduction (bc57ff8: +17.4 ± 22.7):
        // without a table move the ordering is poor; a shallower search is
        // cheaper and stores one for later.
        if self.root.selective
            && depth >= params::iir_min_depth()
            && tt_move == PackedMove::NONE
            && excluded.is_none()
        {
            depth -= 1;
        }

        // Steps 7 to 10 prune the whole node before any move is tried: not
        // at PV nodes, not in check, not in a singular search.
        let prunable = self.root.selective && !pv_node && !in_check && excluded.is_none();

        // Step 7. Reverse futility pruning (f94bc98: +51.1 ± 22.2): near
        // the leaves, a static evaluation far above beta is not going to be
        // brought back below it.
        if prunable
            && depth <= params::rfp_max_depth()
            && beta.abs() < MATE_BOUND
            && eval - params::rfp_margin() * (depth - i32::from(improving)) >= beta
        {
            return eval;
        }

        // Step 8. Razoring (bc57ff8: +20.9 ± 23.7): a static evaluation
        // hopelessly below alpha near the leaves; if the captures cannot
        // restore it either, give up here.
        if prunable
            && depth <= params::razor_max_depth()
            && alpha.abs() < MATE_BOUND
            && eval + params::razor_margin() * depth < alpha
        {
            let score = self.qsearch(board, alpha, alpha + 1, ply, ctx);
            if self.counts.stopped {
                return 0;
            }
            if score <= alpha {
                return score;
            }
        }

        // Step 9. Null-move pruning (539ee06: +25.7 ± 15.2; reduction by
        // the margin, 1e8ebf2: +7.6 ± 29.9): if passing the move still fails
        // high with a reduced search, a real move almost surely would too.
        // Not twice in a row, and not without pieces (zugzwang).
        let after_null = ply > 0 && self.stack.back(ply, 1).played.is_none();
        if prunable
            && !after_null
            && depth >= params::nmp_min_depth()
            && eval >= beta
            && beta > -MATE_BOUND
            && board.has_non_pawn_material()
        {
            if let Some(child) = board.play_null() {
                if self.net.is_some() {
                    self.stack[ply + 1].acc = self.stack[ply].acc;
                }
                // The further the evaluation stands above beta, the less a
                // search is needed to confirm the cutoff.
                let reduction = params::nmp_base_reduction()
                    + depth / params::nmp_depth_divisor()
                    + ((eval - beta) / params::nmp_eval_divisor())
                        .min(params::nmp_eval_max_reduction());
                self.keys.push(board.key);
                self.stack[ply].played = None;
                let score = -self.search::<NonPv>(
                    &child,
                    Window::null(-beta + 1),
                    depth - 1 - reduction,
                    ply + 1,
                    expect.flip(),
                    ctx,
                );
                self.keys.pop();
                if self.counts.stopped {
                    return 0;
                }
                if score >= beta {
                    // An unproven mate or table win from a null-move search
                    // is not trusted.
                    return if score >= TB_WIN_BOUND { beta } else { score };
                }
            }
        }

        // Step 10. ProbCut (a1f9e24: +16.8 ± 21.2).
        if prunable && depth >= params::probcut_min_depth() && beta.abs() < MATE_BOUND {
            let node = NodeFacts {
                board,
                ply,
                expect,
                tt_hit,
                tt_move,
                raw_eval,
                static_eval,
            };
            if let Some(score) = self.probcut(&node, beta, depth, ctx) {
                return score;
            }
        }

        // Step 11. The moves come from the staged picker (src/movepick.rs),
        // which checks the table move for legality and generates the other
        // moves only as it reaches them. At the root, only those `go
        // searchmoves` names and the MultiPV lines have not taken yet are
        // searched; none is mate or stalemate. Elsewhere a node without
        // legal moves is found after the move loop.
        let mut root_moves = MoveList::new();
        if root {
            root_moves = board.pos.legal_moves();
            if !ctx.limits.searchmoves.is_empty() {
                root_moves.retain(|m| ctx.limits.searchmoves.contains(m));
            }
            if !self.root.excluded.is_empty() {
                root_moves.retain(|m| !self.root.excluded.contains(m));
            }
            if root_moves.is_empty() {
                return if in_check { mated_in(ply) } else { 0 };
            }
        }

        // Step 12. Singular extension with multi-cut (bc57ff8: +19.5 ± 24.2):
        // decides whether the table move alone is searched a ply deeper
        // (step 13c), or the node is cut at once.
        let mut singular_move = None;
        if let Some(hit) = tt_hit {
            if self.root.selective
                && !root
                && excluded.is_none()
                && depth >= params::singular_min_depth()
                && hit.depth >= depth - params::singular_tt_depth_slack()
                && hit.bound != Bound::Upper
                && hit.score.abs() < MATE_BOUND
                && (ply as i32) < 2 * self.root.depth
            {
                if let Some(m) = legal_tt_move(&board.pos, hit.mv) {
                    let test = SingularTest {
                        mv: m,
                        tt_score: hit.score,
                        depth,
                        beta,
                    };
                    let verdict = self.singular(board, test, ply, expect, ctx);
                    if self.counts.stopped {
                        return 0;
                    }
                    match verdict {
                        Singular::Extend => singular_move = Some(m),
                        Singular::Cut(score) => return score,
                        Singular::No => {}
                    }
                }
            }
        }

        // Step 13. The move loop, in the order of the move picker (move
        // ordering with history tables, bc57ff8: +34.2 ± 17.1).
        // The picker takes the killers and the counter-move as the
        // singular search of step 12 (at this ply) left them.
        let side = board.pos.turn();
        let previous = [1, 2].map(|back| self.stack.back(ply, back).played);
        let mut picker = MovePicker::new(
            &board.pos,
            tt_move,
            self.stack[ply].killers,
            previous[0].and_then(|p| self.tables.counter_moves.get(p)),
        );
        let mut tried = Tried::new();
        let mut best_score = tb_floor;
        let mut best_move: Option<Move> = None;
        let original_alpha = alpha;
        let mut searched = 0;
        // Legal moves the picker returned, searched or not.
        let mut legal = 0;

        self.keys.push(board.key);
        // The ordering context borrows the history tables for each call
        // only: the loop updates them.
        while let Some(m) = picker.next_move(&self.ordering(previous)) {
            legal += 1;
            if excluded == Some(m) || (root && !root_moves.contains(&m)) {
                continue;
            }
            let quiet = is_quiet(m);

            // Step 13a. Late move pruning (a3a744c: +87.8 ± 30.6): once
            // enough quiet moves have failed near the leaves, the rest
            // (ordered worse) are not tried, but for those that give check:
            // the picker drops them (killers and counter-move included), so
            // the loop never sees them. Not at PV nodes, not in check, and
            // once one move has a score. (Dropping the quiet checks too, as
            // Ethereal does, lost 24 ± 22 Elo in 654 games at 5000 nodes a
            // move.)
            if quiet
                && self.root.selective
                && !pv_node
                && !in_check
                && best_score > -MATE_BOUND
                && depth <= params::lmp_max_depth()
                && tried.quiet_count as i32
                    >= (params::lmp_base() + depth * depth) / (2 - i32::from(improving))
            {
                picker.skip_quiets();
                if !crate::movepick::gives_check(&board.pos, m) {
                    continue;
                }
            }

            // Step 13b. SEE pruning (bc57ff8: +25.1 ± 21.7): near the
            // leaves, once a move has a score, moves that lose too much
            // material in the exchange are not tried.
            if self.root.selective
                && !root
                && best_score > -MATE_BOUND
                && depth <= params::see_prune_max_depth()
            {
                let threshold = if quiet {
                    -params::see_quiet_margin() * depth * depth
                } else {
                    -params::see_capture_margin() * depth
                };
                if !see_ge(&board.pos, m, threshold) {
                    continue;
                }
            }
            if root && self.verbose {
                self.report_current_move(m, searched + 1, depth, ctx);
            }
            let child = board.play(m);
            self.push_accumulator(ply, board, m, &child);
            let gives_check = child.pos.is_check();
            let nodes_before = self.counts.nodes;
            self.stack[ply].played = Some(piece_to(side, m));

            // Step 13c. Extensions: a move that gives check (forcing lines
            // are searched a ply deeper), and the singular move of step 12.
            let extension = i32::from(gives_check) + i32::from(singular_move == Some(m));
            let new_depth = depth - 1 + extension;

            // Step 13d prunes quiet moves near the leaves, once one move has
            // a score: not at PV nodes, not in check, not the moves that
            // give check.
            let prunable_quiet = self.root.selective
                && !root
                && !pv_node
                && !in_check
                && quiet
                && best_score > -MATE_BOUND
                && !gives_check;

            // Step 13d. Futility pruning (5b6bfe3: +58.7 ± 23.8): a quiet
            // move cannot lift a static evaluation this far below alpha.
            if prunable_quiet
                && searched > 0
                && depth <= params::futility_max_depth()
                && eval + params::futility_base() + params::futility_margin() * depth <= alpha
            {
                continue;
            }

            // Step 13e. The first move is searched with the full window;
            // below a PV node it is a PV node (unless step 2 or 4 closed the
            // window), below an expected cut node an expected all node, and
            // vice versa.
            let score = if searched == 0 {
                if pv_node && beta - alpha > 1 {
                    -self.search::<Pv>(
                        &child,
                        Window::new(-beta, -alpha),
                        new_depth,
                        ply + 1,
                        Expect::All,
                        ctx,
                    )
                } else {
                    let child_expect = if pv_node { Expect::All } else { expect.flip() };
                    -self.search::<NonPv>(
                        &child,
                        Window::new(-beta, -alpha),
                        new_depth,
                        ply + 1,
                        child_expect,
                        ctx,
                    )
                }
            } else {
                // Step 13f. Late move reductions (40d74f0: +43.1 ± 20.5; a
                // ply more at expected cut nodes, 3ad26fd: +7.0 ± 21.6):
                // quiet moves ordered late are searched shallower first, and
                // again at full depth only if they beat alpha.
                let mut reduction = 0;
                if self.root.selective
                    && depth >= params::lmr_min_depth()
                    && quiet
                    && !in_check
                    && searched >= params::lmr_min_searched() as usize
                    && !gives_check
                {
                    reduction = lmr_reduction(depth, searched);
                    if pv_node {
                        reduction -= 1;
                    }
                    // An expected cut node fails high on one of its first
                    // moves; the late ones are unlikely to matter.
                    if cut_node {
                        reduction += 1;
                    }
                    if !improving {
                        reduction += 1;
                    }
                    if self.stack[ply].killers.contains(&Some(m)) {
                        reduction -= 1;
                    }
                    reduction -= self.ordering(previous).quiet_score(side, m)
                        / params::lmr_history_divisor();
                    reduction = reduction.clamp(0, depth - 2);
                }
                // Step 13g. Principal variation search: prove the move is no
                // better with a null window, and search it fully only when
                // it is. A reduced search expects a cut.
                let reduced_expect = if reduction > 0 {
                    Expect::Cut
                } else {
                    expect.flip()
                };
                let mut s = -self.search::<NonPv>(
                    &child,
                    Window::null(-alpha),
                    new_depth - reduction,
                    ply + 1,
                    reduced_expect,
                    ctx,
                );
                if s > alpha && reduction > 0 {
                    s = -self.search::<NonPv>(
                        &child,
                        Window::null(-alpha),
                        new_depth,
                        ply + 1,
                        expect.flip(),
                        ctx,
                    );
                }
                if pv_node && s > alpha && s < beta {
                    s = -self.search::<Pv>(
                        &child,
                        Window::new(-beta, -alpha),
                        new_depth,
                        ply + 1,
                        Expect::All,
                        ctx,
                    );
                }
                s
            };
            searched += 1;
            if root {
                let spent = self.counts.nodes - nodes_before;
                if let Some(r) = self.root.moves.iter_mut().find(|r| r.mv == m) {
                    r.nodes += spent;
                }
            }
            if self.counts.stopped {
                self.keys.pop();
                return 0;
            }

            // Step 13h. A new best move; a cutoff teaches the histories.
            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(m);
                    alpha = score;
                    self.stack.update_pv(ply, m);
                    if root {
                        self.root.best = Some(m);
                        self.root.lead_score = Some(score);
                        self.root.lead_line.clear();
                        self.root.lead_line.extend(self.stack.root_pv());
                    }
                    if score >= beta {
                        self.reward_cutoff(m, side, depth, ply, previous, &tried);
                        break;
                    }
                }
            }
            tried.push(m, quiet);
        }
        self.keys.pop();
        if legal == 0 {
            // Mate or stalemate (the root has returned at step 11).
            return if in_check { mated_in(ply) } else { 0 };
        }
        best_score = best_score.min(tb_ceiling);

        let bound = if best_score >= beta {
            Bound::Lower
        } else if alpha > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };

        // Step 14. Correction history: the search result teaches the
        // evaluation's error in this pawn structure, when it is a quiet
        // judgement (no capture or promotion decided it) and the bound says
        // on which side of the evaluation the truth lies.
        if !in_check
            && !root
            && excluded.is_none()
            && best_move.is_none_or(is_quiet)
            && best_score.abs() < TB_WIN_BOUND
            && !(bound == Bound::Lower && best_score <= raw_eval)
            && !(bound == Bound::Upper && best_score >= raw_eval)
        {
            self.tables
                .correction
                .update(side, pawn_slot, depth, best_score - raw_eval);
        }

        // Step 15. Transposition table store. A root searched without some
        // of its moves (MultiPV lines after the first) has no true score to
        // share.
        if excluded.is_none() && (!root || self.root.excluded.is_empty()) {
            let data = TtData {
                mv: best_move.map_or(PackedMove::NONE, PackedMove::new),
                score: best_score,
                depth,
                bound,
                eval: cacheable_eval(board, raw_eval),
            };
            ctx.tt.store(board.key, ply, data);
        }
        best_score
    }

    /// ProbCut (step 10): if a capture's reduced search beats beta by a
    /// wide margin, the full-depth search would almost surely beat beta
    /// too. The quiescence search screens each capture cheaply first.
    /// Returns the score that cuts the node, if one does (0 when stopped).
    fn probcut(
        &mut self,
        node: &NodeFacts,
        beta: i32,
        depth: i32,
        ctx: &SearchContext,
    ) -> Option<i32> {
        let (board, ply) = (node.board, node.ply);
        let probcut_beta = beta + params::probcut_margin();
        // A table entry deep enough that says the captures cannot reach
        // the margin saves the searches.
        if node.tt_hit.is_some_and(|h| {
            h.depth >= depth - params::probcut_reduction() && h.score < probcut_beta
        }) {
            return None;
        }
        let side = board.pos.turn();
        let mut captures = MoveList::new();
        noisy_moves(&board.pos, &mut captures);
        let mut picker = ScoredMoves::noisy(&mut captures, node.tt_move);
        while let Some(m) = picker.next_move() {
            if !see_ge(&board.pos, m, probcut_beta - node.static_eval) {
                continue;
            }
            let child = board.play(m);
            self.push_accumulator(ply, board, m, &child);
            self.keys.push(board.key);
            self.stack[ply].played = Some(piece_to(side, m));
            let mut score = -self.qsearch(&child, -probcut_beta, -probcut_beta + 1, ply + 1, ctx);
            if score >= probcut_beta {
                // A capture that gives check is extended, as in step 13c.
                let extension = i32::from(child.pos.is_check());
                score = -self.search::<NonPv>(
                    &child,
                    Window::null(-probcut_beta + 1),
                    depth - 1 - params::probcut_reduction() + extension,
                    ply + 1,
                    node.expect.flip(),
                    ctx,
                );
            }
            self.keys.pop();
            if self.counts.stopped {
                return Some(0);
            }
            if score >= probcut_beta && score < TB_WIN_BOUND {
                let data = TtData {
                    mv: PackedMove::new(m),
                    score,
                    depth: depth - params::probcut_reduction(),
                    bound: Bound::Lower,
                    eval: cacheable_eval(board, node.raw_eval),
                };
                ctx.tt.store(board.key, ply, data);
                return Some(score);
            }
        }
        None
    }

    /// Singular extension with multi-cut (step 12): when the table move is
    /// much better than every alternative (a search without it, to a
    /// reduced depth, fails low against a margin under its stored score),
    /// it alone is searched a ply deeper. When even the alternatives beat
    /// beta, several moves refute this node and it is cut at once.
    fn singular(
        &mut self,
        board: &Board,
        test: SingularTest,
        ply: usize,
        expect: Expect,
        ctx: &SearchContext,
    ) -> Singular {
        let singular_beta = test.tt_score - params::singular_margin() * test.depth;
        // The node itself again, without the move: a node in check was
        // extended by its parent, and so is this search.
        let extension = i32::from(board.pos.is_check());
        self.stack[ply].excluded = Some(test.mv);
        let score = self.search::<NonPv>(
            board,
            Window::null(singular_beta),
            (test.depth - 1) / 2 + extension,
            ply,
            expect,
            ctx,
        );
        self.stack[ply].excluded = None;
        self.stack[ply].pv_len = 0;
        // (The caller ignores the verdict of a stopped search.)
        if score < singular_beta {
            Singular::Extend
        } else if singular_beta >= test.beta {
            Singular::Cut(singular_beta)
        } else {
            Singular::No
        }
    }

    /// The static evaluation of the position at `ply`: the net's, from the
    /// accumulators on the stack, while `Use NNUE` is on; else the
    /// hand-crafted one.
    #[inline]
    fn evaluate(&mut self, board: &Board, ply: usize) -> i32 {
        match self.net {
            Some(net) => {
                // Unit tests check every incremental update against a refresh.
                #[cfg(test)]
                assert_eq!(
                    Some(self.stack[ply].acc),
                    crate::nnue::Accumulator::refresh(net, board.pos.board()),
                    "accumulators of ply {ply} differ from a refresh"
                );
                crate::eval::evaluate_nnue_from(net, &self.stack[ply].acc, &board.pos)
            }
            None => self.evaluator.evaluate_hand_crafted(&board.pos),
        }
    }

    /// Makes the accumulators of `ply + 1` from those of `ply` after `m`
    /// (played from `board`, giving `child`), when the net is in use.
    #[inline]
    fn push_accumulator(&mut self, ply: usize, board: &Board, m: Move, child: &Board) {
        if let Some(net) = self.net {
            let mover = board.pos.turn();
            let delta = crate::nnue::features::Delta::of_move(&m, mover);
            let (parent, next) = self.stack.parent_and_child(ply);
            parent
                .acc
                .update_into(&mut next.acc, net, child.pos.board(), &delta, mover);
        }
    }

    /// The evaluator's score (from the table entry `hit` when it holds one)
    /// and the score the search uses: that plus the correction learned for
    /// this pawn structure (`slot`), kept clear of table-win and mate scores.
    #[inline]
    fn static_eval(
        &mut self,
        board: &Board,
        ply: usize,
        slot: usize,
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
        let corrected = raw + self.tables.correction.get(board.pos.turn(), slot);
        (raw, corrected.clamp(-bound, bound))
    }

    /// The move-ordering tables for a node whose last two moves had the
    /// (piece, to) indices `previous`.
    #[inline]
    fn ordering(&self, previous: [Option<usize>; 2]) -> OrderingContext<'_> {
        OrderingContext {
            butterfly: &self.tables.butterfly,
            captures: &self.tables.captures,
            continuations: previous.map(|p| p.map(|p| self.tables.continuation.row(p))),
        }
    }

    /// `info currmove`: after the first second, GUIs show which root move
    /// is being searched.
    fn report_current_move(&self, m: Move, number: usize, depth: i32, ctx: &SearchContext) {
        if ctx.start.elapsed() >= CURRMOVE_AFTER {
            crate::uci::send(&format!(
                "info depth {depth} currmove {} currmovenumber {number}",
                move_to_uci(m, ctx.castling_mode)
            ));
        }
    }

    /// `m` caused a cutoff after the moves `tried`. A quiet move becomes a
    /// killer and the counter-move to the previous move, and gains history
    /// (butterfly and continuation) while the quiet moves tried before it
    /// lose some; a capture gains capture history. The captures tried
    /// before it lose some either way.
    fn reward_cutoff(
        &mut self,
        m: Move,
        side: Color,
        depth: i32,
        ply: usize,
        previous: [Option<usize>; 2],
        tried: &Tried,
    ) {
        let bonus = history_bonus(depth);
        if is_quiet(m) {
            self.reward_quiet(m, side, bonus, ply, previous, tried.quiets());
        } else {
            self.tables.captures.update(side, m, bonus);
        }
        for c in tried.captures().iter().flatten() {
            self.tables.captures.update(side, *c, -bonus);
        }
    }

    fn reward_quiet(
        &mut self,
        m: Move,
        side: Color,
        bonus: i32,
        ply: usize,
        previous: [Option<usize>; 2],
        tried: &[Option<Move>],
    ) {
        if self.stack[ply].killers[0] != Some(m) {
            self.stack[ply].killers[1] = self.stack[ply].killers[0];
            self.stack[ply].killers[0] = Some(m);
        }
        if let Some(prev) = previous[0] {
            self.tables.counter_moves.set(prev, m);
        }
        let white = side.is_white();
        self.tables.butterfly.update(white, m, bonus);
        for prev in previous.iter().flatten() {
            self.tables
                .continuation
                .update(*prev, piece_to(side, m), bonus);
        }
        for q in tried.iter().flatten() {
            self.tables.butterfly.update(white, *q, -bonus);
            for prev in previous.iter().flatten() {
                self.tables
                    .continuation
                    .update(*prev, piece_to(side, *q), -bonus);
            }
        }
    }

    fn qsearch(
        &mut self,
        board: &Board,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        ctx: &SearchContext,
    ) -> i32 {
        self.stack[ply].pv_len = 0;
        self.visit(ctx);
        if self.counts.stopped {
            return 0;
        }
        self.counts.seldepth = self.counts.seldepth.max(ply);
        let in_check = board.pos.is_check();
        // Fifty-move rule (unless the last move mated) and dead positions.
        let fifty =
            board.pos.halfmoves() >= 100 && !(in_check && board.pos.legal_moves().is_empty());
        if fifty || board.pos.is_insufficient_material() {
            return 0;
        }
        if ply >= MAX_PLY - 1 {
            return if in_check {
                0
            } else {
                self.evaluate(board, ply)
            };
        }

        let tt_hit = ctx.tt.probe(board.key, ply);
        if let Some(hit) = tt_hit {
            let score = hit.score;
            let cutoff = match hit.bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            };
            if cutoff && beta - alpha == 1 {
                return score;
            }
        }
        let tt_move = tt_hit.map_or(PackedMove::NONE, |h| h.mv);

        // Evasions need every legal move; otherwise captures suffice. They
        // are generated only now, as a table cutoff makes them unnecessary.
        let mut moves = MoveList::new();
        if in_check {
            moves = board.pos.legal_moves();
        } else {
            noisy_moves(&board.pos, &mut moves);
        }
        let mut raw_eval = -INFINITY;
        let mut best_score;
        let mut picker = if in_check {
            if moves.is_empty() {
                return mated_in(ply);
            }
            best_score = -INFINITY;
            ScoredMoves::evasions(&mut moves, tt_move)
        } else {
            // Stand pat: the side to move can usually do at least as well as
            // the static evaluation by declining every capture.
            let stand_pat;
            (raw_eval, stand_pat) =
                self.static_eval(board, ply, pawn_hash(board.pos.board()), tt_hit);
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best_score = stand_pat;
            ScoredMoves::noisy(&mut moves, tt_move)
        };

        let original_alpha = alpha;
        let mut best_move = None;
        while let Some(m) = picker.next_move() {
            // SEE pruning: a capture that loses material in the exchange
            // cannot raise a stand-pat score.
            if !in_check && !see_ge(&board.pos, m, 0) {
                continue;
            }
            let child = board.play(m);
            self.push_accumulator(ply, board, m, &child);
            let score = -self.qsearch(&child, -beta, -alpha, ply + 1, ctx);
            if self.counts.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(m);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else if alpha > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let data = TtData {
            mv: best_move.map_or(PackedMove::NONE, PackedMove::new),
            score: best_score,
            depth: 0,
            bound,
            eval: cacheable_eval(board, raw_eval),
        };
        ctx.tt.store(board.key, ply, data);
        best_score
    }
}

/// The raw static evaluation to keep in the table entry of `board`: none
/// when it was not computed (in check) or depends on the halfmove clock,
/// which the key leaves out.
fn cacheable_eval(board: &Board, raw_eval: i32) -> Option<i32> {
    (raw_eval > -INFINITY && crate::eval::is_clock_free(&board.pos)).then_some(raw_eval)
}

/// Late-move reduction in plies for the `searched`-th move (0-based count of
/// moves already searched) at `depth`: grows with the logarithm of both.
fn lmr_reduction(depth: i32, searched: usize) -> i32 {
    // A tuning build computes each value, as the parameters may change
    // between searches; the normal build fills the table once.
    #[cfg(feature = "tune")]
    return lmr_formula(depth.clamp(0, 63) as usize, searched.min(63));
    #[cfg(not(feature = "tune"))]
    {
        static TABLE: std::sync::OnceLock<[[i32; 64]; 64]> = std::sync::OnceLock::new();
        let table = TABLE.get_or_init(|| {
            let mut t = [[0; 64]; 64];
            for (d, row) in t.iter_mut().enumerate() {
                for (n, r) in row.iter_mut().enumerate() {
                    *r = lmr_formula(d, n);
                }
            }
            t
        });
        table[(depth as usize).min(63)][searched.min(63)]
    }
}

fn lmr_formula(depth: usize, searched: usize) -> i32 {
    if depth == 0 || searched == 0 {
        return 0;
    }
    let base = f64::from(params::lmr_base_pct()) / 100.0;
    let divisor = f64::from(params::lmr_divisor_pct()) / 100.0;
    (base + (depth as f64).ln() * (searched as f64).ln() / divisor) as i32
}

/// A root move's key for the iteration timer, which tells only whether the
/// best move changed: promotions to different pieces share one.
fn root_move_key(m: Move) -> u16 {
    let from = m.from().map_or(0, |sq| sq as u16);
    from * 64 + m.to() as u16
}

/// A UCI `info` line for a finished iteration; `nodes` counts all threads.
/// Every score the search shows passes here, and only here does it become
/// the score shown: the root's tablebase value when the tables ranked the
/// root ([`crate::tb::shown_score`]). Inside the search, and in
/// [`SearchResult::score`], scores stay those the search computed.
pub fn info_line<'a>(
    depth: i32,
    seldepth: usize,
    score: i32,
    nodes: u64,
    pv: impl Iterator<Item = &'a Move>,
    ctx: &SearchContext,
) -> String {
    let score = crate::tb::shown_score(ctx.tb, score);
    let ms = ctx.start.elapsed().as_millis() as u64;
    let nps = nodes * 1000 / ms.max(1);
    let wdl = match ctx.limits.wdl_material {
        Some(material) => {
            let (w, d, l) = crate::wdl::wdl(score, material);
            format!(" wdl {w} {d} {l}")
        }
        None => String::new(),
    };
    // Tablebase hits, when there are tables.
    let tbhits = ctx.tb.map_or(String::new(), |_| {
        format!(" tbhits {}", ctx.signals.tbhits.load(Ordering::Relaxed))
    });
    let mut line = format!(
        "info depth {depth} seldepth {} score {}{wdl} nodes {nodes} nps {nps} hashfull {}{tbhits} time {ms} pv",
        seldepth.max(depth as usize),
        crate::score::to_uci(score),
        ctx.tt.hashfull(),
    );
    for m in pv {
        line.push(' ');
        line.push_str(&move_to_uci(*m, ctx.castling_mode));
    }
    line
}

/// Numbers an `info` line as line `k` of `MultiPV`: `info depth D seldepth S
/// multipv K score ...`, as GUIs expect.
pub fn number_line(line: &mut String, k: usize) {
    let at = line.find(" score ").unwrap_or(line.len());
    line.insert_str(at, &format!(" multipv {k}"));
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
    use crate::openings::SoloSearch;

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
            let board = Board::new(crate::openings::parse_book_line(fen).unwrap());
            search.new_game();
            let result = search.search(&board, &[], 20_000, 20_000);
            assert!(result.best.is_some(), "{fen}");
        }
    }
}
