//! Scores: the constants every part of the engine measures with, mate and
//! tablebase scores, their distance adjustment for the transposition table,
//! and the UCI form. The module imports nothing of the engine, so the search,
//! the table and the tablebase code can all build on it.

/// The deepest ply a search reaches; arrays indexed by ply have one more.
pub const MAX_PLY: usize = 128;
/// Mate at the root; a mate `ply` plies away scores `MATE - ply`.
pub const MATE: i32 = 32_000;
/// Scores at or beyond this are mates found within `MAX_PLY` plies.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// Above every score: the open window's bounds.
pub const INFINITY: i32 = MATE + 1;
/// A tablebase win at the root: below every mate score, above any evaluation.
/// A win found `ply` plies from the root scores `TB_WIN - ply`.
pub const TB_WIN: i32 = MATE_BOUND - 1;
/// Scores from here up to `MATE_BOUND` are tablebase wins.
pub const TB_WIN_BOUND: i32 = TB_WIN - MAX_PLY as i32;

// Evaluations < tablebase results < mates < INFINITY, with room for MAX_PLY
// plies of distance in each band: checked when the crate compiles.
const _: () = assert!(TB_WIN - (MAX_PLY as i32) >= TB_WIN_BOUND && TB_WIN < MATE_BOUND);
const _: () = assert!(MATE - (MAX_PLY as i32) >= MATE_BOUND && INFINITY > MATE);

/// The score of giving mate `ply` plies from the root.
pub const fn mate_in(ply: usize) -> i32 {
    MATE - ply as i32
}

/// The score of being mated `ply` plies from the root.
pub const fn mated_in(ply: usize) -> i32 {
    -MATE + ply as i32
}

/// The score of a tablebase win reached `ply` plies from the root.
pub const fn tb_win_in(ply: usize) -> i32 {
    TB_WIN - ply as i32
}

/// The score of a tablebase loss reached `ply` plies from the root.
pub const fn tb_loss_in(ply: usize) -> i32 {
    -TB_WIN + ply as i32
}

/// Whether a score is a mate, for either side.
pub const fn is_mate(score: i32) -> bool {
    score.abs() >= MATE_BOUND
}

/// Whether a score is decided: a mate or a tablebase result, for either side.
pub const fn is_decisive(score: i32) -> bool {
    score.abs() >= TB_WIN_BOUND
}

/// Converts a score for storage in the table: mate and tablebase scores
/// become relative to the node, so they stay right when the position is
/// reached at another ply.
pub fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_WIN_BOUND {
        score + ply as i32
    } else if score <= -TB_WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// A stored score back as seen from a node `ply` plies from the root.
pub fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_WIN_BOUND {
        score - ply as i32
    } else if score <= -TB_WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// A score in UCI form: `cp N` or `mate N` (moves, negative when being mated).
pub fn to_uci(score: i32) -> String {
    if score >= MATE_BOUND {
        format!("mate {}", (MATE - score + 1) / 2)
    } else if score <= -MATE_BOUND {
        format!("mate -{}", (MATE + score) / 2)
    } else {
        format!("cp {score}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mates_and_table_results_are_told_apart() {
        for ply in [0, 5, MAX_PLY] {
            assert!(is_mate(mate_in(ply)) && is_mate(mated_in(ply)));
            assert!(!is_mate(tb_win_in(ply)) && !is_mate(tb_loss_in(ply)));
            assert!(is_decisive(tb_win_in(ply)) && is_decisive(tb_loss_in(ply)));
        }
        assert!(!is_decisive(TB_WIN_BOUND - 1) && !is_decisive(-900));
    }

    #[test]
    fn table_scores_keep_their_distance() {
        let s = mate_in(10); // mate in 10 plies from the root, found at ply 4
        let stored = to_tt(s, 4);
        assert_eq!(from_tt(stored, 4), s);
        assert_eq!(from_tt(stored, 6), s - 2);
        assert_eq!(from_tt(to_tt(-s, 4), 6), -s + 2);
        let w = tb_win_in(7);
        assert_eq!(from_tt(to_tt(w, 3), 5), w - 2);
        assert_eq!(from_tt(to_tt(-w, 3), 5), -w + 2);
        assert_eq!(from_tt(to_tt(250, 3), 9), 250);
    }

    #[test]
    fn mate_scores_format_in_moves() {
        assert_eq!(to_uci(MATE - 1), "mate 1");
        assert_eq!(to_uci(MATE - 3), "mate 2");
        assert_eq!(to_uci(-MATE + 2), "mate -1");
        assert_eq!(to_uci(-MATE + 4), "mate -2");
        assert_eq!(to_uci(-35), "cp -35");
    }
}
