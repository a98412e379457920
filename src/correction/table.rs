//! One correction table: per slot, an estimate of the static evaluation's
//! error, moved by each search result toward what the correction still
//! misses; the caller's key decides what a slot stands for (a pawn
//! structure with the side to move, the two moves before, ...).
//!
//! Entries are stored in units of 1/`GRAIN` centipawn so that small
//! residuals still move them; each is bounded by `MAX_CORRECTION`, which
//! also lets an entry fit in an `i16`.

/// Fixed-point unit: an entry of `GRAIN` is one centipawn.
pub const GRAIN: i32 = 256;
/// A result moves an entry by `min(depth + 1, MAX_WEIGHT)` / `WEIGHT_SCALE` of its residual.
const WEIGHT_SCALE: i32 = 256;
const MAX_WEIGHT: i32 = 16;
/// No entry beyond this many centipawns.
pub const MAX_CORRECTION: i32 = 64;
const _: () = assert!(MAX_CORRECTION * GRAIN <= i16::MAX as i32);

pub struct CorrectionTable {
    entries: Box<[i16]>,
}

impl CorrectionTable {
    /// A table of `len` slots, all without correction.
    pub fn new(len: usize) -> CorrectionTable {
        CorrectionTable {
            entries: vec![0; len].into_boxed_slice(),
        }
    }

    /// Forgets everything, in place.
    pub fn clear(&mut self) {
        self.entries.fill(0);
    }

    /// The estimated error of `slot`, in 1/`GRAIN` centipawn.
    #[inline]
    pub fn get(&self, slot: usize) -> i32 {
        i32::from(self.entries[slot])
    }

    /// Folds in one search result: the search at `depth` found `residual`
    /// centipawns more than the corrected static evaluation, so the entry
    /// moves that way by a share that grows with the depth. Every table of a
    /// position learns from the same residual, so together they converge on
    /// the evaluation's error instead of each learning all of it (which
    /// would add up to the error times the sum of the weights).
    #[inline]
    pub fn update(&mut self, slot: usize, depth: i32, residual: i32) {
        let entry = &mut self.entries[slot];
        let weight = (depth + 1).clamp(1, MAX_WEIGHT);
        let step = residual.clamp(-MAX_CORRECTION, MAX_CORRECTION) * GRAIN * weight / WEIGHT_SCALE;
        // The bound keeps the value within an `i16` (asserted above).
        *entry = (i32::from(*entry) + step).clamp(-MAX_CORRECTION * GRAIN, MAX_CORRECTION * GRAIN)
            as i16;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_follow_results_and_stay_bounded() {
        let mut t = CorrectionTable::new(16);
        assert_eq!(t.get(7), 0);
        // A search that keeps finding 40 cp more than the evaluation: the
        // residual shrinks as the entry learns it.
        for _ in 0..200 {
            let residual = 40 - t.get(7) / GRAIN;
            t.update(7, 10, residual);
        }
        let c = t.get(7) / GRAIN;
        assert!((39..=40).contains(&c), "{c}");
        // Another slot is untouched.
        assert_eq!(t.get(6), 0);
        for _ in 0..500 {
            t.update(7, 20, -10_000);
        }
        // Steps are capped, so the entry ends at the bound, not beyond.
        assert_eq!(t.get(7), -MAX_CORRECTION * GRAIN);
        // A shallow result moves the entry less than a deep one.
        let mut shallow = CorrectionTable::new(4);
        let mut deep = CorrectionTable::new(4);
        shallow.update(1, 0, 50);
        deep.update(1, 12, 50);
        assert!(0 < shallow.get(1) && shallow.get(1) < deep.get(1));
    }
}
