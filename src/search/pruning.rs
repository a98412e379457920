//! The steps that decide a node before its move loop (steps 8 to 10 of
//! `Searcher::search`): razoring, null-move pruning and ProbCut. Each runs
//! a reduced search; each returns the score that cuts the node, if one
//! does. Singular extension (step 12) is in `singular`.

use shakmaty::{MoveList, Position};

use super::node::{Expect, NodeFacts, NonPv, Window};
use super::{cacheable_eval, SearchContext, Searcher, MATE_BOUND};
use crate::history::piece_to;
use crate::movegen::noisy_moves;
use crate::movepick::{ScoredMoves, Scores};
use crate::parameters as params;
use crate::score::TB_WIN_BOUND;
use crate::see::see_ge;
use crate::tt::{Bound, PackedMove, TtData};

/// How far the evaluation must stand above beta for null-move pruning
/// (step 9) to be tried: at least beta everywhere, more where a cutoff is
/// less likely (an expected all node, a side that is not improving), so
/// that the null-move search is spent where it tends to succeed.
#[inline]
pub(super) fn null_move_margin(expect: Expect, improving: bool) -> i32 {
    let mut margin = 0;
    if expect == Expect::All {
        margin += params::nmp_all_node_margin();
    }
    if !improving {
        margin += params::nmp_not_improving_margin();
    }
    margin
}

impl Searcher {
    /// Razoring (step 8, ~21 Elo): a static evaluation hopelessly below
    /// alpha near the leaves; if the captures cannot restore it either,
    /// give up here. Returns the score that cuts the node (0 when stopped).
    #[inline]
    pub(super) fn razor(
        &mut self,
        node: &NodeFacts,
        alpha: i32,
        depth: i32,
        ctx: &SearchContext,
    ) -> Option<i32> {
        if depth > params::razor_max_depth()
            || alpha.abs() >= MATE_BOUND
            || node.eval + params::razor_margin() * depth >= alpha
        {
            return None;
        }
        let score = self.qsearch(node.board, alpha, alpha + 1, node.ply, ctx);
        if self.counts.stopped {
            return Some(0);
        }
        (score <= alpha).then_some(score)
    }

    /// Null-move pruning (step 9, ~26 Elo; the reduction grows with the
    /// margin, ~8 Elo): if passing the move still fails high with a
    /// reduced search, a real move almost surely would too. Only where the
    /// evaluation stands `null_move_margin` above beta; not twice in a row,
    /// and not without pieces (zugzwang). Returns the score that cuts the
    /// node (0 when stopped).
    #[inline]
    pub(super) fn null_move(
        &mut self,
        node: &NodeFacts,
        beta: i32,
        depth: i32,
        ctx: &SearchContext,
    ) -> Option<i32> {
        let (board, ply, eval) = (node.board, node.ply, node.eval);
        let after_null = ply > 0 && self.stack.back(ply, 1).played.is_none();
        if after_null
            || depth < params::nmp_min_depth()
            || eval - beta < null_move_margin(node.expect, node.improving)
            || beta <= -MATE_BOUND
            || !board.has_non_pawn_material()
        {
            return None;
        }
        let child = self.make_null_move(ctx, board, ply)?;
        // The further the evaluation stands above beta, the less a search
        // is needed to confirm the cutoff.
        let reduction = params::nmp_base_reduction()
            + depth / params::nmp_depth_divisor()
            + ((eval - beta) / params::nmp_eval_divisor()).min(params::nmp_eval_max_reduction());
        self.keys.push(board.key);
        self.stack[ply].played = None;
        let score = -self.search::<NonPv>(
            &child,
            Window::null(-beta + 1),
            depth - 1 - reduction,
            ply + 1,
            node.expect.flip(),
            ctx,
        );
        self.keys.pop();
        if self.counts.stopped {
            return Some(0);
        }
        // An unproven mate or table win from a null-move search is not
        // trusted.
        (score >= beta).then_some(if score >= TB_WIN_BOUND { beta } else { score })
    }

    /// ProbCut (step 10, ~17 Elo): if a capture's reduced search beats beta by a
    /// wide margin, the full-depth search would almost surely beat beta
    /// too. The quiescence search screens each capture cheaply first.
    /// Returns the score that cuts the node, if one does (0 when stopped).
    pub(super) fn probcut(
        &mut self,
        node: &NodeFacts,
        beta: i32,
        depth: i32,
        ctx: &SearchContext,
    ) -> Option<i32> {
        if depth < params::probcut_min_depth() || beta.abs() >= MATE_BOUND {
            return None;
        }
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
        let mut scores = Scores::new();
        let mut picker = ScoredMoves::noisy(&mut captures, &mut scores, node.tt_move);
        while let Some(m) = picker.next_move() {
            if !see_ge(&board.pos, m, probcut_beta - node.static_eval) {
                continue;
            }
            let key_after = Self::prefetch_child(ctx, board, m);
            let child = self.make_move(ctx, board, ply, m, key_after);
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
                    pv: node.tt_pv,
                };
                ctx.tt.store(board.key, ply, data);
                return Some(score);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_move_asks_more_where_a_cutoff_is_less_likely() {
        let (all, not_improving) = (
            params::nmp_all_node_margin(),
            params::nmp_not_improving_margin(),
        );
        assert!(
            all > 0 && not_improving > 0,
            "the defaults tie the null move"
        );
        assert_eq!(null_move_margin(Expect::Cut, true), 0);
        assert_eq!(null_move_margin(Expect::Cut, false), not_improving);
        assert_eq!(null_move_margin(Expect::All, true), all);
        assert_eq!(null_move_margin(Expect::All, false), all + not_improving);
    }
}
