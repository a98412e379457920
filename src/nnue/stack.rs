//! The net's accumulators along the search's current line, one per ply: the
//! search pushes what each move (or null move) does, and reads the
//! evaluation of the ply it is at; it never sees the feature changes behind
//! a move. Popping is the search returning to a shallower ply: the entry of
//! a ply is rewritten by the next push from its parent.

use shakmaty::{Board, Chess, Color, Move, Position};

use super::features::Delta;
use super::{Accumulator, Network};

pub struct AccumulatorStack {
    /// The net of the search in progress; `None`: no net, every push is a
    /// no-op.
    net: Option<&'static Network>,
    /// The accumulators of plies 0 (the root) to the deepest.
    plies: Box<[Accumulator]>,
}

impl AccumulatorStack {
    /// A stack for lines of up to `plies` plies below the root, without a
    /// net until [`AccumulatorStack::start`].
    pub fn new(plies: usize) -> AccumulatorStack {
        AccumulatorStack {
            net: None,
            plies: vec![Accumulator::EMPTY; plies + 1].into_boxed_slice(),
        }
    }

    /// Starts a search of `root` with `net` (`None`: without a net). False,
    /// and no net, when the board has no kings to view it from.
    pub fn start(&mut self, net: Option<&'static Network>, root: &Board) -> bool {
        self.net = None;
        let Some(net) = net else {
            return true;
        };
        match Accumulator::refresh(net, root) {
            Some(acc) => {
                self.plies[0] = acc;
                self.net = Some(net);
                true
            }
            None => false,
        }
    }

    /// Whether a net is in use.
    #[inline]
    pub fn net(&self) -> Option<&'static Network> {
        self.net
    }

    /// The accumulators of `ply + 1`, after `m` was played from `parent` at
    /// `ply` and led to `child`.
    #[inline]
    pub fn push_move(&mut self, ply: usize, parent: &Chess, m: Move, child: &Board) {
        if let Some(net) = self.net {
            let mover = parent.turn();
            let delta = Delta::of_move(&m, mover);
            let (upto, after) = self.plies.split_at_mut(ply + 1);
            upto[ply].update_into(&mut after[0], net, child, &delta, mover);
        }
    }

    /// The accumulators of `ply + 1` after a null move at `ply`: the same
    /// pieces on the same squares.
    #[inline]
    pub fn push_null(&mut self, ply: usize) {
        if self.net.is_some() {
            self.plies[ply + 1] = self.plies[ply];
        }
    }

    /// The net's raw output at `ply`, whose position has `pieces` pieces and
    /// `stm` to move; 0 without a net (the caller asks [`Self::net`] first).
    #[inline]
    pub fn evaluate(&self, ply: usize, stm: Color, pieces: usize) -> i32 {
        self.net
            .map_or(0, |net| self.plies[ply].evaluate(net, stm, pieces))
    }

    /// Whether the accumulators of `ply` equal those computed afresh from
    /// `board` (true without a net): the unit tests check every incremental
    /// update with it.
    pub fn agrees_with(&self, ply: usize, board: &Board) -> bool {
        self.net
            .is_none_or(|net| Some(self.plies[ply]) == Accumulator::refresh(net, board))
    }
}
