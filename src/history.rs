//! What the search learns about moves while it runs, for move ordering and
//! reductions: butterfly history (side, from, to), continuation history
//! (the move played one and two plies earlier, then this move), capture
//! history (piece, destination, captured piece) and counter-moves.
//!
//! Every table is updated with "gravity": a bonus moves an entry toward
//! ±`HISTORY_MAX` by an amount that shrinks as the entry approaches it, so
//! values stay bounded without periodic rescaling.

use shakmaty::{Color, Move};

use crate::parameters as params;

pub const HISTORY_MAX: i32 = 16_384;

/// Number of (coloured piece, destination) pairs.
pub const PIECE_TO: usize = 12 * 64;

#[inline]
fn gravity(entry: &mut i32, bonus: i32) {
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    *entry += bonus - *entry * bonus.abs() / HISTORY_MAX;
}

/// The bonus for a move that caused a cutoff at `depth` (negated for the
/// moves tried before it).
#[inline]
pub fn history_bonus(depth: i32) -> i32 {
    (depth * depth * params::history_bonus_quadratic() + params::history_bonus_linear() * depth)
        .min(params::history_bonus_max())
}

/// The (coloured piece, destination) index of a move by `side`. Castling is
/// the king moving to its rook's square, as shakmaty represents it.
#[inline]
pub fn piece_to(side: Color, m: Move) -> usize {
    let piece = side.is_white() as usize * 6 + (m.role() as usize - 1);
    piece * 64 + m.to() as usize
}

/// Butterfly history: indexed by side to move, from and to square.
pub struct ButterflyHistory {
    table: Box<[[[i32; 64]; 64]; 2]>,
}

impl Default for ButterflyHistory {
    fn default() -> Self {
        Self::new()
    }
}

impl ButterflyHistory {
    pub fn new() -> ButterflyHistory {
        ButterflyHistory {
            table: Box::new([[[0; 64]; 64]; 2]),
        }
    }

    #[inline]
    fn slot(m: Move) -> (usize, usize) {
        (m.from().map_or(0, |s| s as usize), m.to() as usize)
    }

    #[inline]
    pub fn get(&self, white: bool, m: Move) -> i32 {
        let (f, t) = Self::slot(m);
        self.table[white as usize][f][t]
    }

    #[inline]
    pub fn update(&mut self, white: bool, m: Move, bonus: i32) {
        let (f, t) = Self::slot(m);
        gravity(&mut self.table[white as usize][f][t], bonus);
    }

    /// Shrinks old values so a new search is guided more by what it sees now.
    pub fn age(&mut self) {
        for v in self.table.iter_mut().flatten().flatten() {
            *v /= 2;
        }
    }
}

/// Continuation history: how good a move (piece, to) has been as a reply to
/// an earlier move (piece, to). One table serves both one and two plies back.
pub struct ContinuationHistory {
    table: Box<[[i32; PIECE_TO]]>,
}

impl Default for ContinuationHistory {
    fn default() -> Self {
        Self::new()
    }
}

impl ContinuationHistory {
    pub fn new() -> ContinuationHistory {
        ContinuationHistory {
            table: vec![[0; PIECE_TO]; PIECE_TO].into_boxed_slice(),
        }
    }

    /// The row of replies to the earlier move `prev` (a `piece_to` index).
    #[inline]
    pub fn row(&self, prev: usize) -> &[i32; PIECE_TO] {
        &self.table[prev]
    }

    #[inline]
    pub fn update(&mut self, prev: usize, cur: usize, bonus: i32) {
        gravity(&mut self.table[prev][cur], bonus);
    }
}

/// Capture history: indexed by (piece, destination) and the captured role
/// (shakmaty's `Move::capture`, a pawn for en passant).
pub struct CaptureHistory {
    table: Box<[[i32; 6]]>,
}

impl Default for CaptureHistory {
    fn default() -> Self {
        Self::new()
    }
}

impl CaptureHistory {
    pub fn new() -> CaptureHistory {
        CaptureHistory {
            table: vec![[0; 6]; PIECE_TO].into_boxed_slice(),
        }
    }

    #[inline]
    pub fn get(&self, side: Color, m: Move) -> i32 {
        m.capture()
            .map_or(0, |v| self.table[piece_to(side, m)][v as usize - 1])
    }

    #[inline]
    pub fn update(&mut self, side: Color, m: Move, bonus: i32) {
        if let Some(v) = m.capture() {
            gravity(&mut self.table[piece_to(side, m)][v as usize - 1], bonus);
        }
    }
}

/// The quiet move that last refuted each earlier move (piece, to).
pub struct CounterMoves {
    table: Box<[Option<Move>]>,
}

impl Default for CounterMoves {
    fn default() -> Self {
        Self::new()
    }
}

impl CounterMoves {
    pub fn new() -> CounterMoves {
        CounterMoves {
            table: vec![None; PIECE_TO].into_boxed_slice(),
        }
    }

    #[inline]
    pub fn get(&self, prev: usize) -> Option<Move> {
        self.table[prev]
    }

    #[inline]
    pub fn set(&mut self, prev: usize, m: Move) {
        self.table[prev] = Some(m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Role, Square};

    #[test]
    fn gravity_keeps_values_bounded() {
        let mut h = ButterflyHistory::new();
        let m = Move::Normal {
            role: Role::Knight,
            from: Square::G1,
            capture: None,
            to: Square::F3,
            promotion: None,
        };
        for _ in 0..1000 {
            h.update(true, m, 4096);
        }
        assert!(h.get(true, m) <= HISTORY_MAX && h.get(true, m) > HISTORY_MAX / 2);
        assert_eq!(h.get(false, m), 0);
        for _ in 0..1000 {
            h.update(true, m, -4096);
        }
        assert!(h.get(true, m) >= -HISTORY_MAX && h.get(true, m) < 0);
    }

    #[test]
    fn piece_to_indices_are_distinct_and_in_range() {
        let m = |role, to| Move::Normal {
            role,
            from: Square::A1,
            capture: None,
            to,
            promotion: None,
        };
        let a = piece_to(Color::White, m(Role::King, Square::H8));
        let b = piece_to(Color::Black, m(Role::King, Square::H8));
        let c = piece_to(Color::Black, m(Role::Pawn, Square::A1));
        assert_eq!(a, PIECE_TO - 1);
        assert_eq!(c, 0);
        assert_ne!(a, b);
    }
}
