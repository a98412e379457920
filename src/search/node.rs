//! The alpha-beta node search, step by step (`Searcher::search`). The
//! reduced searches that decide a node before its move loop are in
//! `pruning`, the checks that drop one move before it is made in
//! `move_pruning`, what a cutoff teaches in `rewards`.

use std::sync::atomic::Ordering;

use shakmaty::{Bitboard, Move, MoveList, Position};

use super::lmr::{reduced_depth, research_depth, ReducedMove, ReductionFacts};
use super::move_pruning::{history_prunes, see_prunes};
use super::rewards::{QuietKey, Tried};
use super::singular::Singular;
use super::{cacheable_eval, SearchContext, Searcher, INFINITY, MATE_BOUND, MAX_DEPTH, MAX_PLY};
use crate::board::Board;
use crate::correction::CorrectionKeys;
use crate::history::piece_to;
use crate::movepick::{is_quiet, MovePicker, OrderingContext};
use crate::parameters as params;
use crate::score::{mate_in, mated_in, TB_WIN_BOUND};
use crate::tt::{Bound, PackedMove, TtData};

/// The kind of a node, as a type parameter of `Searcher::search`: each kind
/// gets its own code, and the tests on it cost nothing.
pub(super) trait NodeKind {
    /// Searched with an open window: its exact score is wanted.
    const PV: bool;
    const ROOT: bool;
}

/// The root: a PV node, with its own move list and reports.
pub(super) struct Root;
/// A principal-variation node below the root.
pub(super) struct Pv;
/// A node searched with a null window: only the side of a bound is asked.
pub(super) struct NonPv;

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
pub(super) struct Window {
    alpha: i32,
    beta: i32,
}

impl Window {
    pub(super) fn new(alpha: i32, beta: i32) -> Window {
        Window { alpha, beta }
    }

    /// The null window below `beta`: whether the score reaches `beta`.
    pub(super) fn null(beta: i32) -> Window {
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
pub(super) enum Expect {
    Cut,
    All,
}

impl Expect {
    /// What the child of such a node is expected to be.
    pub(super) fn flip(self) -> Expect {
        match self {
            Expect::Cut => Expect::All,
            Expect::All => Expect::Cut,
        }
    }
}

/// What the steps before the move loop learned of a node, for the
/// reduced searches that may decide it (`pruning`).
pub(super) struct NodeFacts<'b> {
    pub(super) board: &'b Board,
    pub(super) ply: usize,
    pub(super) expect: Expect,
    pub(super) tt_hit: Option<TtData>,
    pub(super) tt_move: PackedMove,
    /// The node is a PV node, or the table's entry says it has been one.
    pub(super) tt_pv: bool,
    pub(super) raw_eval: i32,
    pub(super) static_eval: i32,
    /// The static evaluation tightened by the table's score (see
    /// [`tightened`]): what the pruning decisions use.
    pub(super) eval: i32,
    /// The side to move stands better than at its previous turn.
    pub(super) improving: bool,
}

/// The evaluations of a node (step 5).
struct NodeEval {
    /// The position's slots in the correction tables (none in check).
    correction_keys: CorrectionKeys,
    /// The evaluator's score; `-INFINITY` in check.
    raw: i32,
    /// `raw` plus the correction learned for the position's slots.
    corrected: i32,
    /// `corrected`, or the table's score when its bound says the true score
    /// lies beyond it.
    tightened: i32,
    /// The side to move stands better than at its previous turn.
    improving: bool,
}

/// What the tablebases say of a node (step 4).
enum TbProbe {
    /// The score settles the window.
    Cut(i32),
    /// A PV node's score is at least this.
    Floor(i32),
    /// A PV node's score is at most this.
    Ceiling(i32),
    /// No probe, or a bound a non-PV node cannot use.
    Open,
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

/// Whether a search result teaches the correction tables (step 14): a
/// quiet judgement (no capture or promotion decided it), not a decided
/// score, and a bound that says on which side of the evaluation the truth
/// lies.
#[inline]
fn teaches_correction(
    best_move: Option<Move>,
    best_score: i32,
    bound: Bound,
    corrected_eval: i32,
) -> bool {
    best_move.is_none_or(is_quiet)
        && best_score.abs() < TB_WIN_BOUND
        && !(bound == Bound::Lower && best_score <= corrected_eval)
        && !(bound == Bound::Upper && best_score >= corrected_eval)
}

impl Searcher {
    // The search state proper lives in `self`; the arguments are what
    // changes from node to node. The node kind `N` (root, PV or not) is a
    // type, so its tests cost nothing and each kind gets its own code.
    //
    // The steps follow one another as below, numbered as in docs/search.md,
    // which has what each gained when it came in.
    pub(super) fn search<N: NodeKind>(
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
        // The children of steps 9, 10 and 12 inherit the line's count.
        self.stack[ply + 1].multi_extensions = self.stack[ply].multi_extensions;

        // Step 3. Transposition table probe: an entry deep enough whose
        // bound settles the window ends a non-PV node. At the root the move
        // to try first is the best of the last iteration. The parent
        // prefetched the entry; the net's accumulators of this ply, which
        // the evaluation or the children need unless the entry cuts, are
        // brought up to date while the entry is on its way.
        self.accumulators.prepare(ply);
        let tt_hit = ctx.tt.probe(board.key, ply);
        let mut tt_move = tt_hit.map_or(PackedMove::NONE, |h| h.mv);
        let tt_pv = pv_node || tt_hit.is_some_and(|h| h.pv);
        if let Some(hit) = tt_hit.filter(|_| excluded.is_none()) {
            if !pv_node && hit.depth >= depth && hit.bound.settles(hit.score, alpha, beta) {
                return hit.score;
            }
        }
        if root {
            if let Some(best) = self.root.best {
                tt_move = PackedMove::new(best);
            }
        }

        // Step 4. Tablebases, after a capture or pawn move.
        let mut tb_floor = -INFINITY;
        let mut tb_ceiling = INFINITY;
        if !root && excluded.is_none() {
            match self.probe_tablebases(board, depth, ply, Window::new(alpha, beta), pv_node, ctx) {
                TbProbe::Cut(score) => return score,
                TbProbe::Floor(score) => {
                    tb_floor = score;
                    alpha = alpha.max(score);
                }
                TbProbe::Ceiling(score) => tb_ceiling = score,
                TbProbe::Open => {}
            }
        }

        // Step 5. Static evaluation, corrected, and tightened by the table.
        let evals = self.node_eval(board, ply, in_check, tt_hit, excluded.is_none());
        let (improving, eval) = (evals.improving, evals.tightened);

        // Step 6. Internal iterative reduction (~17 Elo): without a table
        // move the ordering is poor; a shallower search is cheaper and
        // stores one for later.
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

        // Step 7. Reverse futility pruning (~51 Elo): near the leaves, a
        // static evaluation far above beta is not going to be brought back
        // below it.
        if prunable
            && depth <= params::rfp_max_depth()
            && beta.abs() < MATE_BOUND
            && eval - params::rfp_margin() * (depth - i32::from(improving)) >= beta
        {
            return eval;
        }

        let node = NodeFacts {
            board,
            ply,
            expect,
            tt_hit,
            tt_move,
            tt_pv,
            raw_eval: evals.raw,
            static_eval: evals.corrected,
            eval,
            improving,
        };
        if prunable {
            // Steps 8 to 10: razoring, null-move pruning, ProbCut.
            if let Some(score) = self.razor(&node, alpha, depth, ctx) {
                return score;
            }
            if let Some(score) = self.null_move(&node, beta, depth, ctx) {
                return score;
            }
            if let Some(score) = self.probcut(&node, beta, depth, ctx) {
                return score;
            }
        }

        // Step 11. The moves come from the staged picker (src/movepick/),
        // which generates them only as it reaches them. At the root, only
        // those `go searchmoves` names and the MultiPV lines have not taken
        // yet are searched; none is mate or stalemate. Elsewhere a node
        // without legal moves is found after the move loop.
        let mut root_moves = MoveList::new();
        // Whether a root move must be looked up in `root_moves` (the loop
        // would otherwise scan them for every move).
        let mut root_restricted = false;
        if root {
            root_moves = self.root_moves_left();
            if root_moves.is_empty() {
                return if in_check { mated_in(ply) } else { 0 };
            }
            root_restricted = !self.root.every_legal_move || !self.root.excluded.is_empty();
        }
        // The table move, if it is legal here (a table entry may belong to
        // another position with the same index, or rarely the same key).
        let tt_move = tt_move.legal_move(&board.pos);

        // Step 12. Singular extension with multi-cut (~20 Elo): how much
        // deeper or shallower the table move is searched (step 13c), or
        // whether the node is cut at once.
        let mut singular = None;
        if !root && excluded.is_none() {
            let verdict = self.singular(&node, tt_move, depth, beta, pv_node, ctx);
            if self.counts.stopped {
                return 0;
            }
            match verdict {
                Singular::Extend(m, plies) => singular = Some((m, plies)),
                Singular::Cut(score) => return score,
                Singular::No => {}
            }
        }

        // Step 13. The move loop, in the order of the move picker (~34 Elo,
        // with the history tables). The picker takes the killers and the
        // counter-move as the singular search of step 12 (at this ply) left
        // them.
        let side = board.pos.turn();
        let continued = self.stack.continuation_moves(ply);
        let facts = ReductionFacts {
            ply,
            cut_node,
            improving,
            pv_node,
            tt_pv,
            tt_move_noisy: tt_move.is_some_and(|m| !is_quiet(m)),
            correction: if in_check {
                0
            } else {
                (evals.corrected - evals.raw).abs()
            },
        };
        // The children count their cutoffs afresh for this node's moves.
        self.stack[ply + 1].cutoffs = 0;
        let mut picker = MovePicker::new(
            &board.pos,
            tt_move,
            self.stack[ply].killers,
            continued[0].and_then(|p| self.tables.counter_moves.get(p)),
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
        while let Some(m) = picker.next_move(&self.ordering(continued)) {
            legal += 1;
            if excluded == Some(m) || (root_restricted && !root_moves.contains(&m)) {
                continue;
            }
            let quiet = is_quiet(m);
            let key_after = Self::prefetch_child(ctx, board, m);
            // Steps 13a, 13d, 13i and 13b (in that order, cheapest first)
            // prune moves near the leaves once one move has a score, all
            // before the move is made.
            let scored = self.root.selective && best_score > -MATE_BOUND;

            // Step 13a. Late move pruning (~88 Elo): once enough quiet
            // moves have failed near the leaves, the rest (ordered worse)
            // are not tried, but for those that give check: the picker
            // drops them (killers and counter-move included), so the loop
            // never sees them. Not at PV nodes, not in check.
            if quiet
                && scored
                && !pv_node
                && !in_check
                && depth <= params::lmp_max_depth()
                && tried.quiet_count as i32
                    >= (params::lmp_base() + depth * depth) / (2 - i32::from(improving))
            {
                picker.skip_quiets();
                if !picker.gives_check(m) {
                    continue;
                }
            }

            // Step 13d. Futility pruning (~59 Elo): a quiet move cannot
            // lift a static evaluation this far below alpha. Not at PV
            // nodes, not in check, not a move that gives check. Decided
            // before the move is made; the conditions only tighten as the
            // loop goes on (alpha rises), so every quiet move after this one
            // would be pruned too: the picker drops those that give no
            // check, as for late-move pruning.
            if scored
                && quiet
                && !root
                && !pv_node
                && !in_check
                && searched > 0
                && depth <= params::futility_max_depth()
                && eval + params::futility_base() + params::futility_margin() * depth <= alpha
            {
                picker.skip_quiets();
                if !picker.gives_check(m) {
                    continue;
                }
            }

            // The move's history, which history pruning and the reductions
            // judge it by (the picker knows the node's threats, which key
            // the quiet history).
            let history = if quiet {
                self.ordering(continued)
                    .quiet_score(side, picker.threats(), m)
            } else {
                self.tables.captures.get(side, m)
            };

            // Step 13i. History pruning: near the leaves, a quiet move with
            // a poor enough history is not searched. Not at PV nodes, not in
            // check, not a move that gives check.
            if scored
                && quiet
                && !pv_node
                && !in_check
                && history_prunes(history, depth)
                && !picker.gives_check(m)
            {
                continue;
            }

            // Step 13b. SEE pruning (~25 Elo).
            if scored
                && !root
                && depth <= params::see_prune_max_depth()
                && see_prunes(board, m, quiet, depth)
            {
                continue;
            }
            if root && self.verbose {
                self.report_current_move(m, searched + 1, depth, ctx);
            }
            // Every pruning decision taken from this position is behind:
            // only now is the move made and the net's accumulators updated.
            let child = self.make_move(ctx, board, ply, m, key_after);
            let gives_check = child.pos.is_check();
            let nodes_before = self.counts.nodes;
            self.stack[ply].played = Some(piece_to(side, m));

            // Step 13c. Extensions: a move that gives check (forcing lines
            // are searched a ply deeper), and the table move as step 12
            // decided (deeper when singular, shallower when not alone).
            let singular_plies = singular.filter(|&(s, _)| s == m).map_or(0, |(_, p)| p);
            let extension = i32::from(gives_check) + singular_plies;
            self.stack[ply + 1].multi_extensions =
                self.stack[ply].multi_extensions + u8::from(singular_plies >= 2);
            let new_depth = depth - 1 + extension;

            // Step 13e. The first move is searched with the full window;
            // below a PV node it is a PV node (unless step 2 or 4 closed the
            // window), below an expected cut node an expected all node, and
            // vice versa.
            let score = if searched == 0 {
                if pv_node && beta - alpha > 1 {
                    self.search_pv_child(&child, Window::new(alpha, beta), new_depth, ply, ctx)
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
                // Step 13f. Late move reductions.
                let reduced = if in_check {
                    new_depth
                } else {
                    let mv = ReducedMove {
                        m,
                        quiet,
                        gives_check,
                        history,
                    };
                    let reduction = self.late_move_reduction(&mv, depth, searched, &facts);
                    reduced_depth(new_depth, reduction)
                };
                // Step 13g. Principal variation search: prove the move is no
                // better with a null window, and search it fully only when
                // it is. A reduced search expects a cut. A reduced search
                // that beats alpha is searched again a ply deeper or
                // shallower than planned, by how far it beat the best score.
                let reduced_expect = if reduced < new_depth {
                    Expect::Cut
                } else {
                    expect.flip()
                };
                let mut s = -self.search::<NonPv>(
                    &child,
                    Window::null(-alpha),
                    reduced,
                    ply + 1,
                    reduced_expect,
                    ctx,
                );
                if s > alpha && reduced < new_depth {
                    let full = research_depth(new_depth, depth, s, best_score);
                    if full > reduced {
                        s = -self.search::<NonPv>(
                            &child,
                            Window::null(-alpha),
                            full,
                            ply + 1,
                            expect.flip(),
                            ctx,
                        );
                    }
                }
                if pv_node && s > alpha && s < beta {
                    s = self.search_pv_child(&child, Window::new(alpha, beta), new_depth, ply, ctx);
                }
                s
            };
            searched += 1;
            if root {
                self.count_root_nodes(m, self.counts.nodes - nodes_before);
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
                        self.stack[ply].cutoffs += 1;
                        // Only a quiet cutoff teaches the quiet history,
                        // which alone asks for the threats.
                        let key = QuietKey {
                            side,
                            threats: if quiet {
                                picker.threats()
                            } else {
                                Bitboard::EMPTY
                            },
                            continued,
                        };
                        self.reward_cutoff(m, depth, ply, &key, &tried);
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
        let bound = Bound::of_result(best_score, alpha > original_alpha, beta);

        // Step 14. Correction history: the search result teaches the
        // evaluation's error in this pawn structure, placement of each
        // side's pieces, set of minor and of major pieces, and after these
        // two moves.
        if !in_check
            && !root
            && excluded.is_none()
            && teaches_correction(best_move, best_score, bound, evals.corrected)
        {
            self.tables.corrections.update(
                &evals.correction_keys,
                depth,
                best_score - evals.corrected,
            );
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
                eval: cacheable_eval(board, evals.raw),
                pv: tt_pv,
            };
            ctx.tt.store(board.key, ply, data);
        }
        best_score
    }

    /// The score of a PV node's move that led to `child`, searched as a PV
    /// node with the full window: the first move, or a later one that beat
    /// alpha with a null window. `window` and `ply` are the parent's.
    #[inline]
    fn search_pv_child(
        &mut self,
        child: &Board,
        window: Window,
        depth: i32,
        ply: usize,
        ctx: &SearchContext,
    ) -> i32 {
        let child_window = Window::new(-window.beta, -window.alpha);
        -self.search::<Pv>(child, child_window, depth, ply + 1, Expect::All, ctx)
    }

    /// Step 4: the tablebases' verdict on a node after a capture or pawn
    /// move. A win is a lower bound (a mate may score higher), a loss an
    /// upper bound, a draw exact. A bound that does not cut still bounds a
    /// PV node's score.
    #[inline]
    fn probe_tablebases(
        &self,
        board: &Board,
        depth: i32,
        ply: usize,
        window: Window,
        pv_node: bool,
        ctx: &SearchContext,
    ) -> TbProbe {
        let Some((score, bound)) = ctx
            .tb
            .and_then(|tb| tb.probe_search(&board.pos, depth, ply))
        else {
            return TbProbe::Open;
        };
        ctx.signals.tbhits.fetch_add(1, Ordering::Relaxed);
        if bound.settles(score, window.alpha, window.beta) {
            let data = TtData {
                mv: PackedMove::NONE,
                score,
                depth: (depth + params::tb_store_depth_bonus()).min(MAX_DEPTH),
                bound,
                eval: None,
                pv: pv_node,
            };
            ctx.tt.store(board.key, ply, data);
            TbProbe::Cut(score)
        } else if !pv_node {
            TbProbe::Open
        } else if bound == Bound::Lower {
            TbProbe::Floor(score)
        } else {
            TbProbe::Ceiling(score)
        }
    }

    /// Step 5: the static evaluation (kept in the table), corrected by what
    /// positions sharing its pawns, its pieces or its last two moves taught
    /// (correction history, ~7 Elo for the pawn table); whether the
    /// side to move is improving (~9 Elo); and the evaluation the pruning
    /// decisions use, tightened by the table entry `hit` (~20 Elo). In
    /// check there is no static evaluation.
    #[inline]
    fn node_eval(
        &mut self,
        board: &Board,
        ply: usize,
        in_check: bool,
        hit: Option<TtData>,
        bound_trusted: bool,
    ) -> NodeEval {
        let (correction_keys, raw, corrected) = if in_check {
            (CorrectionKeys::default(), -INFINITY, -INFINITY)
        } else {
            let keys = self.correction_keys(board, ply);
            let (raw, corrected) = self.static_eval(board, ply, &keys, hit);
            (keys, raw, corrected)
        };
        self.stack[ply].eval = corrected;
        // Improving: the side to move stands better than at its previous
        // turn. A cutoff is then likelier (reverse futility pruning acts a
        // ply sooner); when it is not, late quiet moves are less likely to
        // raise alpha (fewer are tried, and those are reduced more).
        let two_back = self.stack.back(ply, 2).eval;
        let improving = !in_check && two_back > -INFINITY && corrected > two_back;
        // The table's score bounds the true score more tightly than the
        // static evaluation does when its bound points the same way (not in
        // a singular search, whose bound is not the entry's).
        let tightened = tightened(corrected, hit.filter(|_| !in_check && bound_trusted));
        NodeEval {
            correction_keys,
            raw,
            corrected,
            tightened,
            improving,
        }
    }

    /// The move-ordering tables for a node whose moves
    /// `CONTINUATION_PLIES` back had the (piece, to) indices `continued`.
    #[inline]
    pub(super) fn ordering(&self, continued: [Option<usize>; 3]) -> OrderingContext<'_> {
        OrderingContext {
            butterfly: &self.tables.butterfly,
            captures: &self.tables.captures,
            continuations: continued.map(|p| p.map(|p| self.tables.continuation.row(p))),
        }
    }
}
