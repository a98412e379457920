//! The checks that drop a single move near the leaves before it is made
//! (steps 13i and 13b of `Searcher::search`), apart from the loop so that
//! each can be checked against its margins. Late-move and futility pruning
//! (steps 13a and 13d) stay in the loop, as they stop the picker's quiet
//! moves altogether.

use shakmaty::Move;

use crate::board::Board;
use crate::parameters as params;
use crate::see::see_ge;

/// Whether history pruning (step 13i) drops a quiet move of quiet history
/// `history` at `depth`: near the leaves, a move that has failed this
/// often in this kind of position (its squares, their threats, the moves
/// before it) is not worth a search.
#[inline]
pub(super) fn history_prunes(history: i32, depth: i32) -> bool {
    depth <= params::hist_prune_max_depth() && history < -params::hist_prune_margin() * depth
}

/// Whether SEE pruning (step 13b) drops `m` at `depth`: it loses too much
/// material in the exchange.
#[inline]
pub(super) fn see_prunes(board: &Board, m: Move, quiet: bool, depth: i32) -> bool {
    let threshold = if quiet {
        -params::see_quiet_margin() * depth * depth
    } else {
        -params::see_capture_margin() * depth
    };
    !see_ge(&board.pos, m, threshold)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_prunes_below_the_margin_per_ply_near_the_leaves_only() {
        let (max, margin) = (params::hist_prune_max_depth(), params::hist_prune_margin());
        for depth in 1..=max {
            assert!(!history_prunes(-margin * depth, depth), "depth {depth}");
            assert!(history_prunes(-margin * depth - 1, depth), "depth {depth}");
        }
        assert!(!history_prunes(-10 * margin * max, max + 1));
        assert!(!history_prunes(0, 1));
    }
}
