//! The root: iterative deepening, the root's lines (one, the `MultiPV`
//! lines, or the candidates a limited strength chooses among), each
//! searched in aspiration windows (`aspiration`) around its last score.

use std::sync::atomic::Ordering;

use shakmaty::{Move, MoveList, Position};

use super::aspiration::{Aspiration, Outcome};
use super::node::{Expect, Root, Window};
use super::{
    budget_elapsed, SearchContext, SearchResult, Searcher, INFINITY, MATE, MATE_BOUND, MAX_DEPTH,
};
use crate::board::Board;
use crate::rng::Rng;
use crate::time::IterationTimer;

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

/// The root of the search in progress, and how it is searched.
pub(super) struct RootState {
    /// Keys of the positions before the root: the first `keys_len` of
    /// `Searcher::keys`.
    pub(super) keys_len: usize,
    /// Depth of the iteration in progress; extensions stop at twice it.
    pub(super) depth: i32,
    /// The moves searched at the root (the legal moves, or those `go
    /// searchmoves` names): first the lines of the last completed
    /// iteration, best first, then the others.
    pub(super) moves: Vec<RootMove>,
    /// `moves` holds every legal move (no `go searchmoves` left one out):
    /// with nothing excluded, the root's move loop need not look each move
    /// up in them.
    pub(super) every_legal_move: bool,
    /// How many of `moves` lead a line of the last completed iteration.
    pub(super) lines: usize,
    /// The main thread's factor on the soft time limit, from how settled
    /// the iterations look (see `time::IterationTimer`).
    pub(super) soft_scale: f64,
    /// The best move of the iteration so far (of the last one, before the
    /// first move is searched).
    pub(super) best: Option<Move>,
    /// The score and line with which `best` took the lead in this iteration
    /// (`None` until a move beats alpha in it): when the iteration is cut
    /// short, the move is played with them, and shown with them.
    pub(super) lead_score: Option<i32>,
    pub(super) lead_line: Vec<Move>,
    /// Root moves left out of this search: the moves of the MultiPV lines
    /// already found in this iteration.
    pub(super) excluded: Vec<Move>,
    /// False for `go mate`, which asks for a proof: the unsound prunings
    /// (null move, futility, reductions) are then left out, as they can hide
    /// a mate behind a zugzwang.
    pub(super) selective: bool,
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

impl Searcher {
    /// Iterative deepening from `root`. Returns the best move found (`None`
    /// only when the root has no legal move).
    ///
    /// One loop serves every kind of search: each iteration searches
    /// `wanted` lines, line k being the best move once the moves of lines
    /// 0..k are left out. That is one line for a plain search, the `MultiPV`
    /// lines, or the candidates a limited strength chooses among.
    pub fn think(&mut self, root: &Board, ctx: &SearchContext) -> SearchResult {
        #[cfg(feature = "fault-injection")]
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
        // A board without kings (no legal position has one) is searched
        // with the hand-crafted evaluation.
        self.accumulators.start(ctx.net, root.pos.board());

        let mut legal = root.pos.legal_moves();
        let legal_count = legal.len();
        if !ctx.limits.searchmoves.is_empty() {
            legal.retain(|m| ctx.limits.searchmoves.contains(m));
        }
        self.root.every_legal_move = legal.len() == legal_count;
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
                ctx.output.send(&format!("info depth 0 score {score}"));
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
            let pick = limit.choose(&candidates, Rng::from_clock().uniform());
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

    /// Searches the root with a narrow window around the previous score,
    /// widening it on the side that fails until the score falls inside.
    fn aspiration_search(
        &mut self,
        root: &Board,
        depth: i32,
        previous: i32,
        ctx: &SearchContext,
    ) -> i32 {
        let mut window = Aspiration::new(depth, previous);
        self.root.depth = depth;
        loop {
            // A root in check is extended, as every move into check is.
            let extension = i32::from(root.pos.is_check());
            let score = self.search::<Root>(
                root,
                Window::new(window.alpha, window.beta),
                window.try_depth(depth) + extension,
                0,
                Expect::All,
                ctx,
            );
            if self.counts.stopped || window.update(score) == Outcome::Exact {
                return score;
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

    /// The root moves this search tries: those `go searchmoves` left
    /// (see `think`), less the moves of the MultiPV lines already found in
    /// this iteration.
    pub(super) fn root_moves_left(&self) -> MoveList {
        let mut left = MoveList::new();
        left.extend(
            self.root
                .moves
                .iter()
                .map(|r| r.mv)
                .filter(|m| !self.root.excluded.contains(m)),
        );
        left
    }

    /// Adds `spent` nodes to the root move `m`'s count, which the time
    /// management reads (how much of the search the best move took).
    pub(super) fn count_root_nodes(&mut self, m: Move, spent: u64) {
        if let Some(r) = self.root.moves.iter_mut().find(|r| r.mv == m) {
            r.nodes += spent;
        }
    }

    /// A reply to expect after `best`, from the table, when the PV has none.
    fn ponder_from_tt(&self, root: &Board, best: Move, ctx: &SearchContext) -> Option<Move> {
        let child = root.play(best);
        let hit = ctx.tt.probe(child.key, 1)?;
        hit.mv.legal_move(&child.pos)
    }
}

/// A root move's key for the iteration timer, which tells only whether the
/// best move changed: promotions to different pieces share one.
fn root_move_key(m: Move) -> u16 {
    let from = m.from().map_or(0, |sq| sq as u16);
    from * 64 + m.to() as u16
}
