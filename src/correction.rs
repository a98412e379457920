//! Static-evaluation correction by pawn structure ("correction history").
//!
//! The hand-crafted evaluation is wrong in ways that repeat within a game:
//! a pawn structure it misjudges is misjudged in every position of the
//! subtree that shares it. After each search of a node, the difference
//! between the search result and the static evaluation is folded into a
//! running average kept per side to move and pawn structure; the search
//! then adds that average to the static evaluation it prunes with.
//!
//! Entries are stored in units of 1/`GRAIN` centipawn so that small
//! differences still move the average; each is bounded by `MAX_CORRECTION`.

use shakmaty::{Board, Color};

/// Entries per side; a power of two.
const SIZE: usize = 16_384;
/// Fixed-point unit: an entry of `GRAIN` is one centipawn.
const GRAIN: i32 = 256;
/// The weight of a new sample is `min(depth + 1, MAX_WEIGHT)` out of `WEIGHT_SCALE`.
const WEIGHT_SCALE: i32 = 256;
const MAX_WEIGHT: i32 = 16;
/// No correction beyond this many centipawns.
const MAX_CORRECTION: i32 = 64;

/// The slot of a pawn structure, by the pawn table's hash.
#[inline]
pub fn pawn_hash(board: &Board) -> usize {
    let white = (board.pawns() & board.white()).0;
    let black = (board.pawns() & board.black()).0;
    (crate::eval::pawns::hash([white, black]) >> (64 - SIZE.trailing_zeros())) as usize
}

pub struct CorrectionHistory {
    table: Box<[[i32; SIZE]; 2]>,
}

impl Default for CorrectionHistory {
    fn default() -> Self {
        Self::new()
    }
}

impl CorrectionHistory {
    pub fn new() -> CorrectionHistory {
        CorrectionHistory {
            table: Box::new([[0; SIZE]; 2]),
        }
    }

    /// The correction in centipawns for `side` to move with pawn slot `slot`.
    #[inline]
    pub fn get(&self, side: Color, slot: usize) -> i32 {
        self.table[side as usize][slot] / GRAIN
    }

    /// Folds in one search result: the search at `depth` found `diff`
    /// centipawns more than the uncorrected static evaluation.
    #[inline]
    pub fn update(&mut self, side: Color, slot: usize, depth: i32, diff: i32) {
        let entry = &mut self.table[side as usize][slot];
        let weight = (depth + 1).clamp(1, MAX_WEIGHT);
        let sample = diff.clamp(-MAX_CORRECTION, MAX_CORRECTION) * GRAIN;
        let blended = (*entry * (WEIGHT_SCALE - weight) + sample * weight) / WEIGHT_SCALE;
        *entry = blended.clamp(-MAX_CORRECTION * GRAIN, MAX_CORRECTION * GRAIN);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The piece placement of a FEN.
    fn board(fen: &str) -> Board {
        fen.split(' ').next().unwrap().parse().unwrap()
    }

    #[test]
    fn slot_depends_on_pawns_only() {
        let a = board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
        let b = board("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
        let c = board("rnbqkbnr/pppp1ppp/8/4p3/3PP3/8/PPP2PPP/RNBQKBNR b KQkq - 0 2");
        assert_eq!(pawn_hash(&a), pawn_hash(&b));
        assert_ne!(pawn_hash(&b), pawn_hash(&c));
        assert!(pawn_hash(&c) < SIZE);
    }

    #[test]
    fn corrections_follow_results_and_stay_bounded() {
        let mut h = CorrectionHistory::new();
        assert_eq!(h.get(Color::White, 7), 0);
        for _ in 0..200 {
            h.update(Color::White, 7, 10, 40);
        }
        // Converges toward the repeated difference, from below.
        let c = h.get(Color::White, 7);
        assert!((35..=40).contains(&c), "{c}");
        // The other side's entry is untouched.
        assert_eq!(h.get(Color::Black, 7), 0);
        for _ in 0..500 {
            h.update(Color::White, 7, 20, -10_000);
        }
        // Samples are capped, so the entry ends at the bound, not beyond.
        let c = h.get(Color::White, 7);
        assert!((-MAX_CORRECTION..=-MAX_CORRECTION + 1).contains(&c), "{c}");
        // A shallow result moves the entry less than a deep one.
        let mut shallow = CorrectionHistory::new();
        let mut deep = CorrectionHistory::new();
        shallow.update(Color::Black, 1, 0, 50);
        deep.update(Color::Black, 1, 12, 50);
        let black = Color::Black as usize;
        assert!(0 < shallow.table[black][1] && shallow.table[black][1] < deep.table[black][1]);
    }
}
