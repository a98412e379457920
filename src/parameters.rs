//! Every tuned number of the search, the move ordering, the transposition
//! table and the time management, in one place, each with its name and the
//! range a tuner may try.
//!
//! A parameter is read by calling the function of its name
//! (`parameters::rfp_margin()`). In the normal build that function is a
//! constant, so a parameter costs what the bare number cost. A build with
//! the cargo feature `tune` (`cargo build --release --features tune`) keeps
//! the values in atomics instead and declares each one as a UCI spin option
//! of its name, so that a tuner (SPSA through the match runner) sets them
//! with `setoption name rfp_margin value 80` and no change to the code.
//!
//! Values given in percent (`..._pct`) stand for fractions: a
//! tuner moves whole numbers.

/// One tunable parameter: its UCI name, default and the range it may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parameter {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
}

macro_rules! parameters {
    ($( $(#[doc = $doc:literal])* $name:ident = $value:literal, $min:literal..=$max:literal; )*) => {
        /// Every parameter, in the order of declaration.
        pub const ALL: &[Parameter] = &[
            $( Parameter { name: stringify!($name), default: $value, min: $min, max: $max }, )*
        ];

        #[cfg(not(feature = "tune"))]
        mod values {
            $(
                $(#[doc = $doc])*
                #[inline(always)]
                pub const fn $name() -> i32 {
                    $value
                }
            )*
        }

        #[cfg(feature = "tune")]
        mod values {
            use std::sync::atomic::{AtomicI32, Ordering};

            #[allow(non_camel_case_types)]
            #[derive(Clone, Copy)]
            enum Id {
                $( $name, )*
            }

            pub(super) static VALUES: [AtomicI32; super::ALL.len()] = [
                $( AtomicI32::new($value), )*
            ];

            $(
                $(#[doc = $doc])*
                #[inline]
                pub fn $name() -> i32 {
                    VALUES[Id::$name as usize].load(Ordering::Relaxed)
                }
            )*
        }

        pub use values::*;
    };
}

parameters! {
    // Search (src/search/).

    /// Reverse futility pruning: deepest remaining depth.
    rfp_max_depth = 6, 1..=12;
    /// Reverse futility pruning: margin per ply.
    rfp_margin = 75, 20..=200;
    /// Futility pruning: deepest remaining depth.
    futility_max_depth = 6, 1..=12;
    /// Futility pruning: base margin.
    futility_base = 90, 0..=300;
    /// Futility pruning: margin per ply.
    futility_margin = 80, 20..=200;
    /// Late move pruning: deepest remaining depth.
    lmp_max_depth = 5, 1..=12;
    /// Late move pruning: quiet moves tried at depth d before the rest are
    /// skipped are `lmp_base + d * d` when improving, half as many if not.
    lmp_base = 3, 0..=12;
    /// Null-move pruning: shallowest depth.
    nmp_min_depth = 3, 1..=8;
    /// Null-move pruning: base reduction in plies.
    nmp_base_reduction = 3, 1..=6;
    /// Null-move pruning: one more ply of reduction per this many plies of
    /// depth.
    nmp_depth_divisor = 4, 1..=12;
    /// Null-move pruning: one more ply of reduction per this many
    /// centipawns of evaluation above beta, up to `nmp_eval_max_reduction`.
    nmp_eval_divisor = 200, 50..=600;
    nmp_eval_max_reduction = 3, 0..=6;
    /// Null-move pruning: how far the evaluation must stand above beta at
    /// an expected all node, where a cutoff is unlikely.
    nmp_all_node_margin = 80, 0..=300;
    /// Null-move pruning: how far above beta when the side to move is not
    /// improving.
    nmp_not_improving_margin = 30, 0..=200;
    /// Internal iterative reduction: shallowest depth.
    iir_min_depth = 4, 2..=10;
    /// Razoring: deepest remaining depth.
    razor_max_depth = 2, 1..=6;
    /// Razoring: margin per ply below alpha.
    razor_margin = 250, 50..=600;
    /// SEE pruning: deepest remaining depth.
    see_prune_max_depth = 6, 1..=12;
    /// SEE pruning: exchange loss allowed per ply for a capture.
    see_capture_margin = 90, 10..=300;
    /// SEE pruning: exchange loss allowed per ply squared for a quiet move.
    see_quiet_margin = 25, 5..=100;
    /// ProbCut: shallowest depth.
    probcut_min_depth = 5, 3..=10;
    /// ProbCut: the verifying search is this many plies shallower, plus one.
    probcut_reduction = 3, 1..=6;
    /// ProbCut: margin above beta.
    probcut_margin = 200, 50..=500;
    /// Singular extensions: shallowest depth.
    singular_min_depth = 7, 4..=12;
    /// Singular extensions: how many plies shallower than the node the
    /// table entry may be.
    singular_tt_depth_slack = 3, 1..=6;
    /// Singular extensions: margin per ply under the table score.
    singular_margin = 2, 1..=8;
    /// Singular extensions: a search without the table move that falls
    /// this many centipawns further under the singular margin extends the
    /// move two plies (not at PV nodes).
    singular_double_margin = 20, 0..=100;
    /// Singular extensions: this far under it, a quiet table move is
    /// extended three plies.
    singular_triple_margin = 80, 20..=300;
    /// Singular extensions: at most this many extensions of two plies or
    /// more on a line from the root; past it, one ply.
    singular_multi_limit = 6, 0..=16;
    /// History pruning: at most this depth, a quiet move whose quiet
    /// history (butterfly plus continuation) is below `-hist_prune_margin`
    /// per ply of depth is not searched.
    hist_prune_max_depth = 4, 1..=12;
    hist_prune_margin = 2048, 256..=16_384;
    /// Late move reductions: shallowest depth.
    lmr_min_depth = 3, 2..=6;
    /// Late move reductions: moves searched before the first reduced one.
    lmr_min_searched = 2, 1..=6;
    /// Late move reductions, all in 1/1024 of a ply (`_1024`): the table of
    /// quiet moves is `quiet_base + 1024 * ln(depth) * ln(move number) /
    /// (quiet_divisor_pct / 100)`; that of captures and promotions the same
    /// with their own, smaller, terms.
    lmr_quiet_base_1024 = 768, 0..=2048;
    lmr_quiet_divisor_pct = 225, 100..=400;
    lmr_capture_base_1024 = 0, 0..=2048;
    lmr_capture_divisor_pct = 300, 100..=600;
    /// Late move reductions: less at PV nodes, less again at positions that
    /// have been PV nodes (the table's flag; a PV node has both), more at
    /// expected cut nodes and when the side to move is not improving.
    lmr_pv_1024 = 1024, 0..=3072;
    lmr_tt_pv_1024 = 512, 0..=3072;
    lmr_cut_node_1024 = 1024, 0..=3072;
    lmr_not_improving_1024 = 1024, 0..=3072;
    /// Late move reductions: less for a killer and for a move that gives
    /// check; more for a quiet move when the table move is a capture.
    lmr_killer_1024 = 1024, 0..=3072;
    lmr_gives_check_1024 = 1024, 0..=3072;
    lmr_tt_capture_1024 = 512, 0..=3072;
    /// Late move reductions: more once this many of the node's children
    /// have had a beta cutoff (its moves keep being refuted).
    lmr_child_cutoffs_min = 3, 1..=8;
    lmr_child_cutoffs_1024 = 512, 0..=3072;
    /// Late move reductions: a ply less per this much history (quiet moves:
    /// butterfly plus continuation; captures: capture history).
    lmr_history_divisor = 12_288, 2_048..=32_768;
    lmr_capture_history_divisor = 8_192, 1_024..=32_768;
    /// Late move reductions: less by this much per centipawn of correction
    /// on the static evaluation (a large one says the evaluation is unsure).
    lmr_correction_1024 = 4, 0..=32;
    /// Late move reductions: a reduced search that beats alpha is searched
    /// again a ply deeper when it beats the best score by more than
    /// `lmr_deeper_margin` centipawns, a ply shallower when by less than
    /// `lmr_shallower_margin`.
    lmr_deeper_margin = 50, 0..=300;
    lmr_shallower_margin = 10, 0..=100;
    /// Aspiration windows: shallowest depth with a window.
    aspiration_min_depth = 4, 1..=8;
    /// Aspiration windows: half-width of the first window, in centipawns,
    /// before the widening by the previous score below.
    aspiration_delta = 15, 5..=60;
    /// Aspiration windows: the first window is wider by the previous score
    /// squared over this, because large scores swing more between
    /// iterations than level ones.
    aspiration_score_div = 12_000, 4_000..=40_000;
    /// Aspiration windows: a failed window widens by this percentage.
    aspiration_growth_pct = 50, 10..=200;
    /// Aspiration windows: past this half-width the window opens fully.
    aspiration_max_delta = 1000, 200..=3000;
    /// Tablebase results are stored this many plies deeper than the node.
    tb_store_depth_bonus = 6, 0..=20;

    // Evaluation correction (src/correction/).

    /// The weight, in percent, of each correction table's average in the
    /// correction added to the static evaluation: by pawn structure, by
    /// each side's other pieces (one weight for both sides' tables), by the
    /// minor pieces and kings, by the major pieces and kings, and by the
    /// last two moves. The tables learn together what the corrected
    /// evaluation still misses, so the weights share out the error between
    /// them rather than multiply it. The defaults (the pawn table at its
    /// weight from before the others came, the others at half) are a first
    /// guess for SPSA to settle.
    corr_pawn_weight_pct = 100, 0..=300;
    corr_non_pawn_weight_pct = 50, 0..=300;
    corr_minor_weight_pct = 50, 0..=300;
    corr_major_weight_pct = 50, 0..=300;
    corr_continuation_weight_pct = 50, 0..=300;

    // Move ordering and history (src/history.rs, src/movepick/).

    /// History bonus for a cutoff at depth d: `quadratic * d * d + linear
    /// * d`, at most `history_bonus_max`.
    history_bonus_quadratic = 16, 0..=64;
    history_bonus_linear = 32, 0..=128;
    history_bonus_max = 4096, 512..=16_384;
    /// The continuation history four plies back (the side to move's own
    /// move before last): its weight, in percent, in the quiet history that
    /// orders, prunes and reduces quiet moves, and the share of a cutoff's
    /// bonus (and malus) it learns. One and two plies back count fully.
    cont_hist_4_order_pct = 100, 0..=200;
    cont_hist_4_bonus_pct = 50, 0..=200;
    /// Quiescence and evasion ordering (MVV-LVA, victim value times 100
    /// less attacker value): what a queen promotion adds.
    queen_promotion_order_bonus = 800, 0..=2000;
    /// Good captures: weight of the victim's exchange value.
    capture_victim_weight = 16, 1..=64;
    /// Good captures: the capture history counts divided by this.
    capture_history_divisor = 2, 1..=16;

    // Transposition table (src/tt.rs).

    /// A shallower non-exact bound does not overwrite a fresh entry of the
    /// same position more than this many plies deeper.
    tt_replace_depth_margin = 3, 0..=12;
    /// Replacement: an entry counts this many plies shallower per search
    /// since it was written.
    tt_age_penalty = 8, 0..=32;

    // Time management (src/time.rs).

    /// Moves assumed left in a sudden-death game.
    moves_to_go = 30, 10..=60;
    /// Never plan to use more than this share of the remaining clock on one
    /// move.
    max_share_pct = 40, 10..=90;
    /// Share of the increment (beyond the overhead) spent on each move.
    inc_use_pct = 75, 0..=100;
    /// The hard limit is this many times the planned time per move.
    hard_limit_factor = 3, 1..=10;
    /// With almost nothing on the clock, still search this fraction of it
    /// (one part in this many).
    low_clock_divisor = 20, 5..=100;
    /// Factors on the soft limit, in percent, by the number of iterations
    /// the best move has stood: just changed, then 1, 2, 3, and 4 or more.
    stability_0_pct = 135, 50..=250;
    stability_1_pct = 115, 50..=250;
    stability_2_pct = 100, 50..=250;
    stability_3_pct = 90, 25..=200;
    stability_4_pct = 80, 25..=200;
    /// A best move that took this share (percent) of the iteration's nodes
    /// leaves the soft limit as it is; more shrinks it, less stretches it.
    neutral_node_share_pct = 60, 20..=95;
    /// A score drop of this many centipawns since the last iteration adds
    /// half the soft limit again (smaller drops in proportion).
    score_drop_full_cp = 100, 20..=400;
    /// The product of the factors on the soft limit is kept within these
    /// bounds, in percent.
    soft_scale_min_pct = 40, 10..=100;
    soft_scale_max_pct = 250, 100..=500;
}

/// The parameter of this name (UCI option names ignore case).
pub fn find(name: &str) -> Option<&'static Parameter> {
    ALL.iter().find(|p| p.name.eq_ignore_ascii_case(name))
}

/// Sets a parameter (tuning builds; `setoption` checked the range). The
/// normal build compiles the parameters as constants and has nothing to set.
pub fn set(name: &str, value: i32) {
    #[cfg(feature = "tune")]
    if let Some(i) = ALL.iter().position(|p| p.name.eq_ignore_ascii_case(name)) {
        values::VALUES[i].store(value, std::sync::atomic::Ordering::Relaxed);
    }
    #[cfg(not(feature = "tune"))]
    let _ = (name, value);
}

/// The `option` lines of the tuning build; none in the normal build.
pub fn declarations() -> Vec<String> {
    if cfg!(feature = "tune") {
        ALL.iter()
            .map(|p| {
                format!(
                    "option name {} type spin default {} min {} max {}",
                    p.name, p.default, p.min, p.max
                )
            })
            .collect()
    } else {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_lie_in_their_ranges_and_names_are_unique() {
        for (i, p) in ALL.iter().enumerate() {
            assert!(p.min <= p.default && p.default <= p.max, "{p:?}");
            assert!(p.min >= 0, "setoption's spin reads unsigned: {p:?}");
            assert!(
                ALL[..i]
                    .iter()
                    .all(|q| !q.name.eq_ignore_ascii_case(p.name)),
                "{p:?}"
            );
        }
    }

    #[test]
    fn functions_return_the_declared_defaults() {
        assert_eq!(find("RFP_MARGIN").map(|p| p.default), Some(rfp_margin()));
        assert_eq!(
            find("lmr_history_divisor").map(|p| p.default),
            Some(lmr_history_divisor())
        );
        assert_eq!(
            find("soft_scale_max_pct").map(|p| p.default),
            Some(soft_scale_max_pct())
        );
        assert!(find("no_such_parameter").is_none());
    }

    #[cfg(feature = "tune")]
    #[test]
    fn a_tuning_build_sets_values() {
        set("tb_store_depth_bonus", 7);
        assert_eq!(tb_store_depth_bonus(), 7);
        set("tb_store_depth_bonus", 6);
        assert_eq!(declarations().len(), ALL.len());
    }
}
