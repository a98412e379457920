//! The net's evaluation as the search and `eval` use it: the raw output
//! with what the hand-crafted evaluation also applies around its terms.

use shakmaty::{Chess, Position};

use super::params::HALFMOVE_FREE;
use super::{halfmove_factor, is_dead};

/// The net's evaluation, side to move's view, with what the hand-crafted
/// one also applies around its terms: 0 for a dead position, and the same
/// fade towards the fifty-move rule (so the table's clock-free caching of
/// evaluations holds for both).
pub fn evaluate_nnue(net: &crate::nnue::Network, pos: &Chess) -> i32 {
    match crate::nnue::Accumulator::refresh(net, pos.board()) {
        Some(acc) => finish_net_eval(pos, || {
            acc.evaluate(net, pos.turn(), pos.board().occupied().count())
        }),
        None => 0,
    }
}

/// The net's evaluation of `pos` from its raw output `raw` (called only
/// when needed), with what the hand-crafted evaluation also applies around
/// its terms: 0 for a dead position, clear of mate and tablebase scores, and
/// the fade towards the fifty-move rule.
#[inline]
pub fn finish_net_eval(pos: &Chess, raw: impl FnOnce() -> i32) -> i32 {
    if is_dead(pos) {
        return 0;
    }
    let raw = raw().clamp(
        -crate::score::TB_WIN_BOUND + 1,
        crate::score::TB_WIN_BOUND - 1,
    );
    raw * halfmove_factor(pos.halfmoves()) / (100 - HALFMOVE_FREE)
}
