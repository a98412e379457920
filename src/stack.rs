//! The search stack: what the search keeps for each ply of the line it is
//! on, one entry per ply.
//!
//! Entries before the root hold what "no move, no evaluation" means, so a
//! node looks back up to four plies without asking whether there are that
//! many.

use std::ops::{Index, IndexMut};

use shakmaty::Move;

use crate::score::{INFINITY, MAX_PLY};

/// Entries before the root: as far back as any node looks.
const BEFORE_ROOT: usize = 4;

/// How many plies back the moves lie whose (piece, to) pairs key the
/// continuation histories of a node: the opponent's last move, and the side
/// to move's own last two (the plan it is carrying on).
pub const CONTINUATION_PLIES: [usize; 3] = [1, 2, 4];

/// What the search keeps for one ply of the current line.
#[derive(Clone, Copy)]
pub struct StackEntry {
    /// The principal variation found from this ply: its first `pv_len`
    /// moves, starting with this ply's move.
    pub pv: [Option<Move>; MAX_PLY + 1],
    pub pv_len: usize,
    /// Quiet moves that caused a cutoff at this ply, newest first.
    pub killers: [Option<Move>; 2],
    /// The (piece, to) index of the move played at this ply; `None` for a
    /// null move, and before the root.
    pub played: Option<usize>,
    /// The static evaluation (`-INFINITY` in check, and before the root),
    /// to tell whether the side to move is improving.
    pub eval: i32,
    /// The move a singular-extension search leaves out at this ply.
    pub excluded: Option<Move>,
    /// Beta cutoffs in the move loops of this ply's nodes since the parent's
    /// move loop began (it resets the count): how often the parent's moves
    /// were refuted, which tells it how late moves are likely to fare.
    pub cutoffs: u32,
    /// Singular extensions of two plies or more on the line from the root
    /// to this ply, which a line may hold only so many of.
    pub multi_extensions: u8,
}

impl StackEntry {
    const EMPTY: StackEntry = StackEntry {
        pv: [None; MAX_PLY + 1],
        pv_len: 0,
        killers: [None; 2],
        played: None,
        eval: -INFINITY,
        excluded: None,
        cutoffs: 0,
        multi_extensions: 0,
    };
}

/// The entries of plies 0 to `MAX_PLY`, after `BEFORE_ROOT` empty ones.
/// Indexed by ply.
pub struct Stack {
    entries: Box<[StackEntry; BEFORE_ROOT + MAX_PLY + 1]>,
}

impl Default for Stack {
    fn default() -> Self {
        Self::new()
    }
}

impl Stack {
    pub fn new() -> Stack {
        Stack {
            entries: Box::new([StackEntry::EMPTY; BEFORE_ROOT + MAX_PLY + 1]),
        }
    }

    /// The entry `back` plies before `ply` (at most four): before the root,
    /// an empty one.
    #[inline]
    pub fn back(&self, ply: usize, back: usize) -> &StackEntry {
        debug_assert!(back <= BEFORE_ROOT);
        &self.entries[BEFORE_ROOT + ply - back]
    }

    /// The (piece, to) indices of the moves played one and two plies before
    /// `ply`: the key of the continuation correction.
    #[inline]
    pub fn previous_moves(&self, ply: usize) -> [Option<usize>; 2] {
        [1, 2].map(|back| self.back(ply, back).played)
    }

    /// The (piece, to) indices of the moves played `CONTINUATION_PLIES`
    /// before `ply`: the rows of the continuation history that order and
    /// learn the node's quiet moves. `None` where that ply was a null move
    /// or lies before the root: a null move has no (piece, to) to continue.
    #[inline]
    pub fn continuation_moves(&self, ply: usize) -> [Option<usize>; 3] {
        CONTINUATION_PLIES.map(|back| self.back(ply, back).played)
    }

    /// Forgets the killer moves, which belong to one search.
    pub fn clear_killers(&mut self) {
        for e in self.entries.iter_mut() {
            e.killers = [None; 2];
        }
    }

    /// `m` starts the principal variation of `ply`, followed by that of the
    /// next ply.
    #[inline]
    pub fn update_pv(&mut self, ply: usize, m: Move) {
        let i = BEFORE_ROOT + ply;
        let (upto, after) = self.entries.split_at_mut(i + 1);
        let (entry, child) = (&mut upto[i], &after[0]);
        entry.pv[0] = Some(m);
        entry.pv[1..=child.pv_len].copy_from_slice(&child.pv[..child.pv_len]);
        entry.pv_len = child.pv_len + 1;
    }

    /// The principal variation from the root.
    pub fn root_pv(&self) -> impl Iterator<Item = Move> + '_ {
        let root = &self[0];
        root.pv[..root.pv_len].iter().flatten().copied()
    }
}

impl Index<usize> for Stack {
    type Output = StackEntry;

    #[inline]
    fn index(&self, ply: usize) -> &StackEntry {
        &self.entries[BEFORE_ROOT + ply]
    }
}

impl IndexMut<usize> for Stack {
    #[inline]
    fn index_mut(&mut self, ply: usize) -> &mut StackEntry {
        &mut self.entries[BEFORE_ROOT + ply]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Role, Square};

    fn mv(from: Square, to: Square) -> Move {
        Move::Normal {
            role: Role::Knight,
            from,
            capture: None,
            to,
            promotion: None,
        }
    }

    #[test]
    fn before_the_root_is_empty() {
        let mut stack = Stack::new();
        stack[0].played = Some(7);
        stack[0].eval = 30;
        assert_eq!(stack.back(0, 1).played, None);
        assert_eq!(stack.back(1, 2).eval, -INFINITY);
        assert_eq!(stack.back(2, 2).played, Some(7));
        assert_eq!(stack.back(2, 2).eval, 30);
    }

    #[test]
    fn continuation_moves_skip_null_moves_and_the_plies_before_the_root() {
        let mut stack = Stack::new();
        for ply in 0..6 {
            stack[ply].played = Some(100 + ply);
        }
        // A null move at ply 1: no row four plies back from ply 5, while
        // the moves one and two plies back still count.
        stack[1].played = None;
        assert_eq!(stack.continuation_moves(5), [Some(104), Some(103), None]);
        assert_eq!(
            stack.continuation_moves(6),
            [Some(105), Some(104), Some(102)]
        );
        // The node two plies after the null move has it as its own last
        // move but one.
        assert_eq!(stack.continuation_moves(3), [Some(102), None, None]);
        // Before the root there is no move.
        assert_eq!(stack.continuation_moves(2), [None, Some(100), None]);
        assert_eq!(stack.continuation_moves(0), [None; 3]);
    }

    #[test]
    fn pv_is_the_move_then_the_child_line() {
        let mut stack = Stack::new();
        let (a, b, c) = (
            mv(Square::G1, Square::F3),
            mv(Square::G8, Square::F6),
            mv(Square::B1, Square::C3),
        );
        stack[2].pv_len = 0;
        stack.update_pv(1, c);
        stack.update_pv(0, a);
        assert_eq!(stack.root_pv().collect::<Vec<_>>(), vec![a, c]);
        stack[1].pv_len = 0;
        stack.update_pv(0, b);
        assert_eq!(stack.root_pv().collect::<Vec<_>>(), vec![b]);
    }
}
