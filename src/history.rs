//! What the search learns about moves while it runs, for move ordering,
//! pruning and reductions: butterfly history (side, whether the opponent
//! attacks the from- and the to-square, from, to), continuation history
//! (the move played one, two or four plies earlier, then this move),
//! capture history (piece, destination, captured piece) and counter-moves.
//!
//! Every table is updated with "gravity": a bonus moves an entry toward
//! ±`HISTORY_MAX` by an amount that shrinks as the entry approaches it, so
//! values stay bounded without periodic rescaling.

use shakmaty::{Bitboard, Color, Move};

use crate::huge_pages::HugePageSlice;
use crate::parameters as params;

pub const HISTORY_MAX: i32 = 16_384;
// The butterfly and continuation tables store entries as i16.
const _: () = assert!(HISTORY_MAX <= i16::MAX as i32);

/// Number of (coloured piece, destination) pairs.
pub const PIECE_TO: usize = 12 * 64;

#[inline]
fn gravity(entry: &mut i32, bonus: i32) {
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    *entry += bonus - *entry * bonus.abs() / HISTORY_MAX;
}

/// `gravity` for the tables kept in `i16` (butterfly and continuation).
#[inline]
fn gravity_i16(entry: &mut i16, bonus: i32) {
    let mut value = i32::from(*entry);
    gravity(&mut value, bonus);
    // Gravity keeps |value| <= HISTORY_MAX, which fits an i16 (asserted
    // beside HISTORY_MAX).
    *entry = value as i16;
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

/// Butterfly history: indexed by side to move, whether the opponent
/// attacks the move's from-square and whether it attacks its to-square
/// (`threats`: every square the opponent attacks), then from and to square.
/// The same move is worth more when it takes a piece out of an attack and
/// less when it puts one into one, and the threats tell those apart. The
/// entries are `i16` (gravity keeps them within ±`HISTORY_MAX`), so the
/// four tables of each side take 64 KB.
pub struct ButterflyHistory {
    table: Box<[ButterflySide; 2]>,
}

/// One side's butterfly history: by threat index (from-square attacked,
/// to-square attacked), then from and to square.
pub type ButterflySide = [[[i16; 64]; 64]; 4];

impl Default for ButterflyHistory {
    fn default() -> Self {
        Self::new()
    }
}

impl ButterflyHistory {
    pub fn new() -> ButterflyHistory {
        ButterflyHistory {
            table: Box::new([[[[0; 64]; 64]; 4]; 2]),
        }
    }

    /// Forgets everything, in place.
    pub fn clear(&mut self) {
        self.table
            .as_flattened_mut()
            .as_flattened_mut()
            .as_flattened_mut()
            .fill(0);
    }

    /// The threat index (from-square attacked, to-square attacked), from
    /// and to square of `m`.
    #[inline]
    fn slot(threats: Bitboard, m: Move) -> (usize, usize, usize) {
        let from = m.from();
        let from_attacked = from.is_some_and(|s| threats.contains(s));
        let to_attacked = threats.contains(m.to());
        let threat = usize::from(from_attacked) * 2 + usize::from(to_attacked);
        (threat, from.map_or(0, |s| s as usize), m.to() as usize)
    }

    /// The tables of one side, for a caller that looks up many of its moves.
    #[inline]
    pub fn side(&self, white: bool) -> &ButterflySide {
        &self.table[white as usize]
    }

    #[inline]
    pub fn get(&self, white: bool, threats: Bitboard, m: Move) -> i32 {
        let (k, f, t) = Self::slot(threats, m);
        i32::from(self.table[white as usize][k][f][t])
    }

    #[inline]
    pub fn update(&mut self, white: bool, threats: Bitboard, m: Move, bonus: i32) {
        let (k, f, t) = Self::slot(threats, m);
        gravity_i16(&mut self.table[white as usize][k][f][t], bonus);
    }

    /// Shrinks old values so a new search is guided more by what it sees now.
    /// Runs over the table as one flat slice, which the compiler
    /// vectorises (the nested iterators it did not): the generator's
    /// searches are a few thousand nodes each, so this once-a-search loop
    /// shows in its profile.
    pub fn age(&mut self) {
        let flat = self
            .table
            .as_flattened_mut()
            .as_flattened_mut()
            .as_flattened_mut();
        for v in flat {
            *v /= 2;
        }
    }
}

/// Continuation history: how good a move (piece, to) has been as a reply to
/// an earlier move (piece, to). One table serves the moves one, two and
/// four plies back (`stack::CONTINUATION_PLIES`). Its entries are `i16`,
/// as the butterfly table's: half the memory (1.2 MB instead of 2.4 MB) is
/// fewer cache misses in the lookups that every quiet move makes.
pub struct ContinuationHistory {
    /// On huge pages: every quiet move reads a few of its rows at random.
    table: HugePageSlice<[i16; PIECE_TO]>,
}

impl Default for ContinuationHistory {
    fn default() -> Self {
        Self::new()
    }
}

impl ContinuationHistory {
    pub fn new() -> ContinuationHistory {
        ContinuationHistory {
            table: HugePageSlice::zeroed(PIECE_TO),
        }
    }

    /// Forgets everything, in place.
    pub fn clear(&mut self) {
        self.table.fill([0; PIECE_TO]);
    }

    /// The row of replies to the earlier move `prev` (a `piece_to` index).
    #[inline]
    pub fn row(&self, prev: usize) -> &[i16; PIECE_TO] {
        &self.table[prev]
    }

    #[inline]
    pub fn update(&mut self, prev: usize, cur: usize, bonus: i32) {
        gravity_i16(&mut self.table[prev][cur], bonus);
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

    /// Forgets everything, in place.
    pub fn clear(&mut self) {
        self.table.fill([0; 6]);
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

    /// Forgets everything, in place.
    pub fn clear(&mut self) {
        self.table.fill(None);
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
pub(crate) mod tests {
    use super::*;
    use shakmaty::{Role, Square};

    /// The quiet move the history tests (and the move picker's) update.
    pub(crate) fn knight_g1_f3() -> Move {
        Move::Normal {
            role: Role::Knight,
            from: Square::G1,
            capture: None,
            to: Square::F3,
            promotion: None,
        }
    }

    #[test]
    fn gravity_keeps_values_bounded() {
        let mut h = ButterflyHistory::new();
        let m = knight_g1_f3();
        let none = Bitboard::EMPTY;
        for _ in 0..1000 {
            h.update(true, none, m, 4096);
        }
        assert!(h.get(true, none, m) <= HISTORY_MAX && h.get(true, none, m) > HISTORY_MAX / 2);
        assert_eq!(h.get(false, none, m), 0);
        for _ in 0..1000 {
            h.update(true, none, m, -4096);
        }
        assert!(h.get(true, none, m) >= -HISTORY_MAX && h.get(true, none, m) < 0);
        for _ in 0..1000 {
            h.update(true, none, m, HISTORY_MAX);
        }
        assert_eq!(h.get(true, none, m), HISTORY_MAX);
    }

    #[test]
    fn butterfly_entries_tell_attacked_from_and_to_squares_apart() {
        let mut h = ButterflyHistory::new();
        let m = knight_g1_f3();
        let from = Bitboard::from(Square::G1);
        let to = Bitboard::from(Square::F3);
        let both = from | to;
        // Squares other than the move's do not matter.
        let elsewhere = Bitboard::from(Square::E4) | Bitboard::from(Square::G3);
        let threats = [Bitboard::EMPTY, from, to, both];
        for (i, &t) in threats.iter().enumerate() {
            h.update(true, t, m, 1000 * (i as i32 + 1));
        }
        for (i, &t) in threats.iter().enumerate() {
            assert_eq!(h.get(true, t, m), 1000 * (i as i32 + 1), "threats {t:?}");
            assert_eq!(h.get(true, t | elsewhere, m), 1000 * (i as i32 + 1));
            assert_eq!(h.get(false, t, m), 0);
        }
        h.update(false, Bitboard::EMPTY, m, -1001);
        h.age();
        assert_eq!(h.get(true, both, m), 2000);
        // Halving rounds toward zero, as it always has (an arithmetic
        // shift would give -501 and change the search).
        assert_eq!(h.get(false, Bitboard::EMPTY, m), -500);
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
