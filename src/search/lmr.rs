//! Late-move reductions in fractions of a ply (step 13f of
//! `Searcher::search`): the base tables, the adjustments, and the rounding
//! of a reduction to the depth of the reduced search.
//!
//! A reduction is counted in 1/1024 of a ply ([`ONE_PLY`]) while its terms
//! are summed, so that small adjustments add up instead of each being
//! rounded away; only the sum is rounded to whole plies ([`reduced_depth`]).

use shakmaty::Move;

use super::Searcher;
use crate::movepick::holds_move;
use crate::parameters as params;

/// One ply, in the units of a reduction.
pub(super) const ONE_PLY: i32 = 1024;

/// What the move loop's reductions ask of its node.
pub(super) struct ReductionFacts {
    pub(super) ply: usize,
    /// The node is an expected cut node.
    pub(super) cut_node: bool,
    pub(super) improving: bool,
    pub(super) pv_node: bool,
    /// The node is or has been a PV node (`NodeFacts::tt_pv`).
    pub(super) tt_pv: bool,
    /// The table move is a capture or a promotion.
    pub(super) tt_move_noisy: bool,
    /// How far the correction history moved the static evaluation, in
    /// centipawns (0 in check).
    pub(super) correction: i32,
}

/// What the reductions ask of the move they reduce.
#[derive(Clone, Copy)]
pub(super) struct ReducedMove {
    pub(super) m: Move,
    pub(super) quiet: bool,
    pub(super) gives_check: bool,
    /// The move's history: quiet history (butterfly under the node's
    /// threats plus continuation) for a quiet move, capture history for
    /// the others.
    pub(super) history: i32,
}

/// The base reduction, in 1/1024 ply, for the `searched`-th move (0-based
/// count of moves already searched) at `depth`: grows with the logarithm
/// of both. Captures and promotions (`quiet` false) have a table of their
/// own, smaller: they are ordered by what they win, so a late one is less
/// surely bad.
pub(super) fn base_reduction(depth: i32, searched: usize, quiet: bool) -> i32 {
    let depth = depth.clamp(0, 63) as usize;
    let searched = searched.min(63);
    // A tuning build computes each value, as the parameters may change
    // between searches; the normal build fills the tables once.
    #[cfg(feature = "tune")]
    return formula(depth, searched, quiet);
    #[cfg(not(feature = "tune"))]
    {
        type Table = [[[i32; 64]; 64]; 2];
        static TABLE: std::sync::OnceLock<Box<Table>> = std::sync::OnceLock::new();
        let table = TABLE.get_or_init(|| {
            let mut t = Box::new([[[0; 64]; 64]; 2]);
            for (q, rows) in t.iter_mut().enumerate() {
                for (d, row) in rows.iter_mut().enumerate() {
                    for (n, r) in row.iter_mut().enumerate() {
                        *r = formula(d, n, q == 1);
                    }
                }
            }
            t
        });
        table[usize::from(quiet)][depth][searched]
    }
}

fn formula(depth: usize, searched: usize, quiet: bool) -> i32 {
    if depth == 0 || searched == 0 {
        return 0;
    }
    let (base, divisor_pct) = if quiet {
        (
            params::lmr_quiet_base_1024(),
            params::lmr_quiet_divisor_pct(),
        )
    } else {
        (
            params::lmr_capture_base_1024(),
            params::lmr_capture_divisor_pct(),
        )
    };
    let logs = (depth as f64).ln() * (searched as f64).ln();
    base + (logs * f64::from(ONE_PLY) * 100.0 / f64::from(divisor_pct)) as i32
}

/// The depth of the reduced search of a move whose full search would go to
/// `new_depth`, reduced by `reduction` (1/1024 ply, possibly negative):
/// rounded down to whole plies, never above `new_depth` (a reduction does
/// not extend) and never below one ply (the reduced search still searches
/// the move rather than dropping into the quiescence search); a move at
/// the horizon already (`new_depth` 0) stays there.
pub(super) fn reduced_depth(new_depth: i32, reduction: i32) -> i32 {
    (new_depth - reduction / ONE_PLY).clamp(new_depth.min(1), new_depth)
}

/// The depth of the full-depth search after a reduced one beat alpha with
/// `score`: a ply deeper when it beat the node's best score so far by a
/// wide margin (the move may be better than the reduced search could
/// show), a ply shallower when only just. Never deeper than the node's own
/// `depth`: a move extended already (a check) is not deepened again, or a
/// line of checks would gain a ply at every move and run to the ply limit.
pub(super) fn research_depth(new_depth: i32, depth: i32, score: i32, best_score: i32) -> i32 {
    let planned = if score > best_score + params::lmr_deeper_margin() {
        new_depth + 1
    } else if score < best_score + params::lmr_shallower_margin() {
        new_depth - 1
    } else {
        new_depth
    };
    planned.min(depth)
}

impl Searcher {
    /// Step 13f. Late move reductions (~43 Elo; more at expected cut
    /// nodes, ~7 Elo): a move ordered late (`searched` moves before it) is
    /// searched shallower first, and again at full depth only if it beats
    /// alpha. Returns the reduction in 1/1024 ply (negative for a move
    /// that deserves a deeper look than the table gives it); the caller
    /// rounds it to whole plies. Not called in check.
    #[inline]
    pub(super) fn late_move_reduction(
        &self,
        mv: &ReducedMove,
        depth: i32,
        searched: usize,
        facts: &ReductionFacts,
    ) -> i32 {
        let ReducedMove {
            m,
            quiet,
            gives_check,
            history,
        } = *mv;
        if !self.root.selective
            || depth < params::lmr_min_depth()
            || searched < params::lmr_min_searched() as usize
        {
            return 0;
        }
        let mut reduction = base_reduction(depth, searched, quiet);
        if facts.pv_node {
            reduction -= params::lmr_pv_1024();
        }
        // A position once on the principal variation is likelier to be
        // again, and its moves deserve a closer look.
        if facts.tt_pv {
            reduction -= params::lmr_tt_pv_1024();
        }
        // An expected cut node fails high on one of its first moves; the
        // late ones are unlikely to matter.
        if facts.cut_node {
            reduction += params::lmr_cut_node_1024();
        }
        if !facts.improving {
            reduction += params::lmr_not_improving_1024();
        }
        if gives_check {
            reduction -= params::lmr_gives_check_1024();
        }
        // Most of this node's moves so far have been refuted: the late ones
        // likely will be too.
        if self.stack[facts.ply + 1].cutoffs >= params::lmr_child_cutoffs_min() as u32 {
            reduction += params::lmr_child_cutoffs_1024();
        }
        // The larger the correction, the less the static evaluation behind
        // the node's pruning is to be trusted.
        reduction -= facts.correction * params::lmr_correction_1024();
        if quiet {
            // A capture as the best move found so far leaves a quiet move
            // little hope.
            if facts.tt_move_noisy {
                reduction += params::lmr_tt_capture_1024();
            }
            if holds_move(&self.stack[facts.ply].killers, m) {
                reduction -= params::lmr_killer_1024();
            }
            reduction -= history * ONE_PLY / params::lmr_history_divisor();
        } else {
            reduction -= history * ONE_PLY / params::lmr_capture_history_divisor();
        }
        reduction
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_reductions_grow_with_depth_and_move_count() {
        for quiet in [false, true] {
            for depth in 1..63 {
                for searched in 1..63 {
                    let r = base_reduction(depth, searched, quiet);
                    assert!(r >= 0);
                    assert!(base_reduction(depth + 1, searched, quiet) >= r);
                    assert!(base_reduction(depth, searched + 1, quiet) >= r);
                }
            }
        }
        // Not flat: late moves at depth are reduced by plies.
        assert!(base_reduction(20, 40, true) >= 3 * ONE_PLY);
    }

    #[test]
    fn captures_are_reduced_less_than_quiet_moves() {
        for depth in 1..64 {
            for searched in 1..64 {
                assert!(
                    base_reduction(depth, searched, false) <= base_reduction(depth, searched, true)
                );
            }
        }
        assert!(base_reduction(20, 40, false) < base_reduction(20, 40, true));
    }

    #[test]
    fn reduced_depth_rounds_down_and_stays_within_one_ply_and_new_depth() {
        assert_eq!(reduced_depth(10, 0), 10);
        assert_eq!(reduced_depth(10, ONE_PLY - 1), 10);
        assert_eq!(reduced_depth(10, ONE_PLY), 9);
        assert_eq!(reduced_depth(10, 3 * ONE_PLY + 1000), 7);
        // A negative reduction does not extend.
        assert_eq!(reduced_depth(10, -5 * ONE_PLY), 10);
        // Never below one ply.
        assert_eq!(reduced_depth(4, 10 * ONE_PLY), 1);
        assert_eq!(reduced_depth(1, 2 * ONE_PLY), 1);
        // A move at the horizon is not lifted above it.
        assert_eq!(reduced_depth(0, 0), 0);
        assert_eq!(reduced_depth(0, ONE_PLY), 0);
        assert_eq!(reduced_depth(0, -ONE_PLY), 0);
    }

    #[test]
    fn research_goes_deeper_for_a_wide_margin_and_shallower_for_a_narrow_one() {
        let (best, wide, narrow) = (
            0,
            params::lmr_deeper_margin() + 1,
            params::lmr_shallower_margin() - 1,
        );
        assert_eq!(research_depth(8, 9, best + wide, best), 9);
        assert_eq!(research_depth(8, 9, best + wide - 1, best), 8);
        assert_eq!(research_depth(8, 9, best + narrow + 1, best), 8);
        assert_eq!(research_depth(8, 9, best + narrow, best), 7);
        // A checking move, extended to the node's depth, is not deepened.
        assert_eq!(research_depth(9, 9, best + wide, best), 9);
    }
}
