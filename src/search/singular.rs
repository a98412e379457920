//! Singular extension with multi-cut (step 12 of `Searcher::search`): the
//! table move is searched deeper when every alternative falls well short of
//! its stored score, shallower when it is not alone in holding the node,
//! and the node is cut at once when the alternatives beat beta too.

use shakmaty::{Move, Position};

use super::node::{Expect, NodeFacts, NonPv, Window};
use super::{SearchContext, Searcher, MATE_BOUND};
use crate::movepick::is_quiet;
use crate::parameters as params;
use crate::tt::Bound;

/// The outcome of a singular search.
pub(super) enum Singular {
    /// The table move is searched this many plies deeper (negative:
    /// shallower) than the node's other moves.
    Extend(Move, i32),
    /// Other moves beat beta too: the node is cut with this score.
    Cut(i32),
    No,
}

/// How many plies a singular table move is extended when the search
/// without it scored `score` under `singular_beta`: one, two when it fell
/// short by more than `singular_double_margin`, three by more than
/// `singular_triple_margin` for a quiet move. Only one ply at PV nodes,
/// and once the line from the root holds `singular_multi_limit` extensions
/// of two plies or more, so that a line cannot grow without end.
pub(super) fn singular_extension(
    score: i32,
    singular_beta: i32,
    pv_node: bool,
    quiet: bool,
    multi_extensions: u8,
) -> i32 {
    if pv_node || i32::from(multi_extensions) >= params::singular_multi_limit() {
        1
    } else if quiet && score < singular_beta - params::singular_triple_margin() {
        3
    } else if score < singular_beta - params::singular_double_margin() {
        2
    } else {
        1
    }
}

/// How many plies the table move is searched shallower when it is not
/// singular and no multi-cut happened: two when its stored score already
/// beats beta (another move likely does too), one at an expected cut node
/// (a cutoff is likely from some move), none otherwise.
pub(super) fn negative_extension(tt_score: i32, beta: i32, cut_node: bool) -> i32 {
    if tt_score >= beta {
        -2
    } else if cut_node {
        -1
    } else {
        0
    }
}

impl Searcher {
    /// Singular extension with multi-cut (step 12): when the table move
    /// `tt_move` is much better than every alternative (a search without
    /// it, to a reduced depth, fails low against a margin under its stored
    /// score), it is searched one to three plies deeper
    /// ([`singular_extension`]); when it is not, shallower
    /// ([`negative_extension`]). When even the alternatives beat beta,
    /// several moves refute this node and it is cut at once. Not at the
    /// root nor in a singular search (the caller checks), and only with a
    /// table entry deep enough to trust. The caller ignores the verdict of
    /// a stopped search.
    pub(super) fn singular(
        &mut self,
        node: &NodeFacts,
        tt_move: Option<Move>,
        depth: i32,
        beta: i32,
        pv_node: bool,
        ctx: &SearchContext,
    ) -> Singular {
        let (board, ply) = (node.board, node.ply);
        let Some(hit) = node.tt_hit else {
            return Singular::No;
        };
        if !self.root.selective
            || depth < params::singular_min_depth()
            || hit.depth < depth - params::singular_tt_depth_slack()
            || hit.bound == Bound::Upper
            || hit.score.abs() >= MATE_BOUND
            || (ply as i32) >= 2 * self.root.depth
        {
            return Singular::No;
        }
        let Some(mv) = tt_move else {
            return Singular::No;
        };
        let singular_beta = hit.score - params::singular_margin() * depth;
        // The node itself again, without the move: a node in check was
        // extended by its parent, and so is this search.
        let extension = i32::from(board.pos.is_check());
        self.stack[ply].excluded = Some(mv);
        let score = self.search::<NonPv>(
            board,
            Window::null(singular_beta),
            (depth - 1) / 2 + extension,
            ply,
            node.expect,
            ctx,
        );
        self.stack[ply].excluded = None;
        self.stack[ply].pv_len = 0;
        if score < singular_beta {
            let multi = self.stack[ply].multi_extensions;
            let plies = singular_extension(score, singular_beta, pv_node, is_quiet(mv), multi);
            Singular::Extend(mv, plies)
        } else if singular_beta >= beta {
            Singular::Cut(singular_beta)
        } else {
            match negative_extension(hit.score, beta, node.expect == Expect::Cut) {
                0 => Singular::No,
                plies => Singular::Extend(mv, plies),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_far_ahead_of_the_rest_is_extended_further() {
        let beta = 100;
        let double = params::singular_double_margin();
        let triple = params::singular_triple_margin();
        assert_eq!(singular_extension(beta - 1, beta, false, true, 0), 1);
        assert_eq!(
            singular_extension(beta - double - 1, beta, false, true, 0),
            2
        );
        assert_eq!(singular_extension(beta - double, beta, false, true, 0), 1);
        assert_eq!(
            singular_extension(beta - triple - 1, beta, false, true, 0),
            3
        );
        // A capture or promotion gets two plies at most.
        assert_eq!(
            singular_extension(beta - triple - 1, beta, false, false, 0),
            2
        );
    }

    #[test]
    fn pv_nodes_and_lines_at_the_limit_extend_by_one_ply() {
        let far_below = 100 - params::singular_triple_margin() - 1;
        assert_eq!(singular_extension(far_below, 100, true, true, 0), 1);
        let limit = params::singular_multi_limit() as u8;
        assert_eq!(
            singular_extension(far_below, 100, false, true, limit - 1),
            3
        );
        assert_eq!(singular_extension(far_below, 100, false, true, limit), 1);
    }

    #[test]
    fn a_table_move_that_is_not_alone_is_searched_shallower() {
        assert_eq!(negative_extension(120, 100, false), -2);
        assert_eq!(negative_extension(100, 100, true), -2);
        assert_eq!(negative_extension(99, 100, true), -1);
        assert_eq!(negative_extension(99, 100, false), 0);
    }
}
