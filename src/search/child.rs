//! Making a move in the search: the child's transposition-table entry is
//! asked for early, so that its load overlaps the work before the probe,
//! and the net's accumulators of the next ply are recorded.

use shakmaty::{Move, Position};

use super::{SearchContext, Searcher};
use crate::board::Board;

impl Searcher {
    /// Asks for the entry of the child that `m` leads to as soon as the move
    /// is known: its load then overlaps the pruning decisions and the
    /// move's making. A pruned move wastes one prefetch; the gain is larger.
    /// Returns the key asked for, which `make_move` completes.
    #[inline(always)]
    pub(super) fn prefetch_child(ctx: &SearchContext, board: &Board, m: Move) -> u64 {
        let key_after = board.key_after(m);
        ctx.tt.prefetch(key_after);
        key_after
    }

    /// Makes `m` from `board` at `ply`, completing `key_after` (from
    /// `prefetch_child`) into the child's key. The few moves whose key the
    /// move alone does not tell (an en-passant square, a castling right)
    /// have their entry asked for again.
    #[inline(always)]
    pub(super) fn make_move(
        &mut self,
        ctx: &SearchContext,
        board: &Board,
        ply: usize,
        m: Move,
        key_after: u64,
    ) -> Board {
        let child = board.play_from_key_after(m, key_after);
        if child.key != key_after {
            ctx.tt.prefetch(child.key);
        }
        self.accumulators
            .push_move(ply, &board.pos, m, child.pos.board());
        child
    }

    /// Makes the null move from `board` at `ply`, its entry asked for as a
    /// move's is; `None` where the position allows none (in check).
    #[inline(always)]
    pub(super) fn make_null_move(
        &mut self,
        ctx: &SearchContext,
        board: &Board,
        ply: usize,
    ) -> Option<Board> {
        let key_after = board.key_after_null();
        ctx.tt.prefetch(key_after);
        let child = board.play_null()?;
        if child.key != key_after {
            ctx.tt.prefetch(child.key);
        }
        self.accumulators.push_null(ply);
        Some(child)
    }
}
