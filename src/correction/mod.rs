//! Static-evaluation correction ("correction history").
//!
//! The evaluation is wrong in ways that repeat within a game: a pawn
//! structure, a placement of one side's pieces, a set of minor or of major
//! pieces it misjudges is misjudged in every position of the subtree that
//! shares it, and a pair of moves that it misreads is misread wherever it
//! is played. After each search of a node, the difference between the
//! search result and the corrected static evaluation (what the tables
//! together still miss) is folded into one table per such context
//! (`table`), at the slot of the node's context (`keys`); the search adds
//! the weighted sum of the entries to the static evaluation it prunes
//! with. The weights are tunable parameters.

mod keys;
mod table;

pub use keys::CorrectionKeys;
use keys::{CONTINUATION_SIZE, SIZE};
pub use table::CorrectionTable;
use table::GRAIN;

use crate::parameters as params;

/// Every correction table of a search thread.
pub struct Corrections {
    pawn: CorrectionTable,
    /// By Black's and by White's pieces (`Color as usize`).
    non_pawn: [CorrectionTable; 2],
    minor: CorrectionTable,
    major: CorrectionTable,
    continuation: CorrectionTable,
}

impl Default for Corrections {
    fn default() -> Self {
        Self::new()
    }
}

impl Corrections {
    pub fn new() -> Corrections {
        let by_pieces = || CorrectionTable::new(2 * SIZE);
        Corrections {
            pawn: by_pieces(),
            non_pawn: [by_pieces(), by_pieces()],
            minor: by_pieces(),
            major: by_pieces(),
            continuation: CorrectionTable::new(CONTINUATION_SIZE),
        }
    }

    /// Forgets everything, in place.
    pub fn clear(&mut self) {
        let [black, white] = &mut self.non_pawn;
        for table in [
            &mut self.pawn,
            black,
            white,
            &mut self.minor,
            &mut self.major,
            &mut self.continuation,
        ] {
            table.clear();
        }
    }

    /// The correction in centipawns for the position of `keys`: each
    /// table's entry times its weight in percent.
    #[inline]
    pub fn get(&self, keys: &CorrectionKeys) -> i32 {
        let non_pawn =
            self.non_pawn[0].get(keys.non_pawn[0]) + self.non_pawn[1].get(keys.non_pawn[1]);
        let continuation = keys
            .continuation
            .map_or(0, |slot| self.continuation.get(slot));
        let weighted = params::corr_pawn_weight_pct() * self.pawn.get(keys.pawn)
            + params::corr_non_pawn_weight_pct() * non_pawn
            + params::corr_minor_weight_pct() * self.minor.get(keys.minor)
            + params::corr_major_weight_pct() * self.major.get(keys.major)
            + params::corr_continuation_weight_pct() * continuation;
        weighted / (100 * GRAIN)
    }

    /// Folds in one search result at every slot of `keys`: the search at
    /// `depth` found `diff` centipawns more than the corrected static
    /// evaluation (what the tables together still miss).
    #[inline]
    pub fn update(&mut self, keys: &CorrectionKeys, depth: i32, diff: i32) {
        self.pawn.update(keys.pawn, depth, diff);
        self.non_pawn[0].update(keys.non_pawn[0], depth, diff);
        self.non_pawn[1].update(keys.non_pawn[1], depth, diff);
        self.minor.update(keys.minor, depth, diff);
        self.major.update(keys.major, depth, diff);
        if let Some(slot) = keys.continuation {
            self.continuation.update(slot, depth, diff);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Board, Color};

    fn keys(previous: [Option<usize>; 2]) -> CorrectionKeys {
        let board: Board = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R"
            .parse()
            .unwrap();
        CorrectionKeys::new(&board, Color::White, previous)
    }

    /// The weighted sum, computed table by table from the outside.
    fn weighted_sum(c: &Corrections, k: &CorrectionKeys) -> i32 {
        let terms = [
            (params::corr_pawn_weight_pct(), c.pawn.get(k.pawn)),
            (
                params::corr_non_pawn_weight_pct(),
                c.non_pawn[0].get(k.non_pawn[0]),
            ),
            (
                params::corr_non_pawn_weight_pct(),
                c.non_pawn[1].get(k.non_pawn[1]),
            ),
            (params::corr_minor_weight_pct(), c.minor.get(k.minor)),
            (params::corr_major_weight_pct(), c.major.get(k.major)),
            (
                params::corr_continuation_weight_pct(),
                k.continuation.map_or(0, |s| c.continuation.get(s)),
            ),
        ];
        terms.iter().map(|(w, e)| w * e).sum::<i32>() / (100 * GRAIN)
    }

    #[test]
    fn the_correction_is_the_weighted_sum_of_the_tables() {
        let mut c = Corrections::new();
        let k = keys([Some(100), Some(200)]);
        assert_eq!(c.get(&k), 0);
        c.update(&k, 12, 50);
        // Each table holds a sample of its own, of another size and sign,
        // so that a term left out, doubled or given another's weight shows.
        c.pawn.update(k.pawn, 3, 20);
        c.non_pawn[0].update(k.non_pawn[0], 15, -40);
        c.non_pawn[1].update(k.non_pawn[1], 7, 64);
        c.minor.update(k.minor, 1, -30);
        c.major.update(k.major, 9, 10);
        c.continuation.update(k.continuation.unwrap(), 5, 60);
        assert_ne!(c.get(&k), 0);
        assert_eq!(c.get(&k), weighted_sum(&c, &k));
        // Without a last move there is no continuation term.
        let without = keys([None, None]);
        assert_eq!(c.get(&without), weighted_sum(&c, &without));
        assert_ne!(c.get(&without), c.get(&k));
    }

    #[test]
    fn an_update_moves_every_table_of_the_position() {
        let mut c = Corrections::new();
        let k = keys([Some(100), None]);
        // Searches that keep finding 30 cp more than the raw evaluation:
        // each teaches what the corrected evaluation still misses.
        for _ in 0..300 {
            let residual = 30 - c.get(&k);
            c.update(&k, 15, residual);
        }
        for (name, entry) in [
            ("pawn", c.pawn.get(k.pawn)),
            ("white", c.non_pawn[1].get(k.non_pawn[1])),
            ("black", c.non_pawn[0].get(k.non_pawn[0])),
            ("minor", c.minor.get(k.minor)),
            ("major", c.major.get(k.major)),
            ("continuation", c.continuation.get(k.continuation.unwrap())),
        ] {
            assert!(entry > 2 * GRAIN, "{name}: {entry}");
        }
        // Together the tables converge on the error itself, not on the
        // error times the sum of the weights.
        assert!((28..=30).contains(&c.get(&k)), "{}", c.get(&k));
        // Another side to move is another slot: nothing learned there.
        let board: Board = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R"
            .parse()
            .unwrap();
        let other = CorrectionKeys::new(&board, Color::Black, [None; 2]);
        assert_eq!(c.get(&other), 0);
    }
}
