//! What `go` asks of a search ([`Limits`]), and time management: turns the
//! `go` clock parameters into a soft limit (do not start another iteration
//! after it, scaled by how settled the search looks) and a hard limit (abort
//! the search).

use std::time::Duration;

use shakmaty::Move;

use crate::parameters as params;
use crate::strength::{StrengthLimit, CANDIDATE_LINES};

/// What `go` asked for.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    /// No new iteration once this many nodes are spent (the "soft node
    /// limit" of data generation: whole iterations, so a position is not
    /// judged by a half-searched last depth).
    pub soft_nodes: Option<u64>,
    /// Stop once a mate in at most this many moves is found.
    pub mate: Option<u32>,
    pub budget: Option<TimeBudget>,
    /// `go infinite`: never stop on our own, and hold `bestmove` until `stop`.
    pub infinite: bool,
    /// Restrict the root to these moves (`go searchmoves`).
    pub searchmoves: Vec<Move>,
    /// Best lines to report (`MultiPV`); 0 counts as 1.
    pub multipv: usize,
    /// `UCI_LimitStrength`: the node budget and the choice among root lines.
    pub strength: Option<StrengthLimit>,
    /// `UCI_ShowWDL`: the root's material count, which with the score gives
    /// the `wdl` figures of each `info` line.
    pub wdl_material: Option<i32>,
}

impl Limits {
    /// Root lines the main thread searches each iteration: what `MultiPV`
    /// asks for, and enough to choose from when the strength is limited.
    pub fn lines_to_search(&self) -> usize {
        let candidates = self.strength.map_or(1, |_| CANDIDATE_LINES);
        self.multipv.max(candidates).max(1)
    }

    /// Whether the main thread's own result must be played: with several
    /// lines or a strength limit, a helper's single line is not comparable.
    pub fn main_thread_decides(&self) -> bool {
        self.lines_to_search() > 1 || self.strength.is_some()
    }
}

/// Clock information from a `go` command, for the side to move.
#[derive(Clone, Copy, Debug, Default)]
pub struct Clock {
    pub time_ms: u64,
    pub inc_ms: u64,
    pub movestogo: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeBudget {
    pub soft: Duration,
    pub hard: Duration,
    /// `go movetime`: the whole time is the search's to use, so iterations
    /// are not cut short at the soft limit.
    pub use_all: bool,
}

/// Budget for a move with a running clock. `overhead_ms` covers the GUI's and
/// the operating system's latency; it is kept in reserve on every move.
pub fn budget_for_clock(clock: Clock, overhead_ms: u64) -> TimeBudget {
    // The tuned numbers (moves assumed left in a sudden-death game, shares
    // of the clock and the increment) are in `parameters`.
    let mtg = clock
        .movestogo
        .unwrap_or(params::moves_to_go() as u64)
        .clamp(1, 50);
    // What may be spent without risk: the clock minus a reserve for overhead
    // on this and the next moves.
    let reserve = overhead_ms.saturating_mul(2).max(overhead_ms + 5);
    let usable = clock.time_ms.saturating_sub(reserve);
    // Each move also costs the overhead in real time, which the increment
    // must pay for first: spending the whole increment on thinking drains a
    // low clock by the latency on every move until it flags.
    let inc = clock.inc_ms.saturating_sub(overhead_ms);
    let per_move = usable / mtg + inc * params::inc_use_pct() as u64 / 100;
    let cap = if mtg == 1 {
        usable
    } else {
        usable * params::max_share_pct() as u64 / 100
    };
    let soft = per_move.min(cap);
    let hard = (per_move * params::hard_limit_factor() as u64)
        .min(cap)
        .max(soft);
    // With almost nothing on the clock, still search a little: a move at
    // depth one beats a flag, and `hard` never exceeds the time left.
    let floor = (clock.time_ms / params::low_clock_divisor() as u64)
        .min(clock.time_ms.saturating_sub(overhead_ms));
    TimeBudget {
        soft: Duration::from_millis(soft.max(floor.min(5))),
        hard: Duration::from_millis(hard.max(floor)),
        use_all: false,
    }
}

/// Budget for `go movetime`: use the whole time, less the overhead.
pub fn budget_for_movetime(movetime_ms: u64, overhead_ms: u64) -> TimeBudget {
    let t = movetime_ms
        .saturating_sub(overhead_ms)
        .max(movetime_ms.min(1));
    TimeBudget {
        soft: Duration::from_millis(t),
        hard: Duration::from_millis(t),
        use_all: true,
    }
}

/// After each completed iteration, how much of the soft limit the search
/// should use before it stops starting new iterations. A best move that has
/// stood for several iterations and took most of the effort is likely final,
/// so the search stops early; a best move that just changed, shares the
/// effort with its rivals, or whose score fell deserves a longer look.
#[derive(Clone, Copy, Debug, Default)]
pub struct IterationTimer {
    /// Completed iterations in a row that kept the best move.
    stable_iterations: u32,
    /// The best move (as `from * 64 + to`, any stable key) and score of the
    /// previous completed iteration.
    last: Option<(u16, i32)>,
}

/// A parameter given in percent, as a fraction.
fn fraction(percent: i32) -> f64 {
    f64::from(percent) / 100.0
}

/// Factors on the soft limit by the number of iterations the best move has
/// stood: just changed, then 1, 2, 3, and 4 or more.
fn stability_scale(stable_iterations: u32) -> f64 {
    fraction(match stable_iterations {
        0 => params::stability_0_pct(),
        1 => params::stability_1_pct(),
        2 => params::stability_2_pct(),
        3 => params::stability_3_pct(),
        _ => params::stability_4_pct(),
    })
}

/// The bounds of the factor on the soft limit.
fn scale_bounds() -> (f64, f64) {
    (
        fraction(params::soft_scale_min_pct()),
        fraction(params::soft_scale_max_pct()),
    )
}

impl IterationTimer {
    /// Records a completed iteration and returns the factor for the soft
    /// limit. `best_nodes` are the nodes spent under the best move's
    /// subtree, `total_nodes` those of the whole iteration (or search).
    pub fn update(&mut self, best_move: u16, score: i32, best_nodes: u64, total_nodes: u64) -> f64 {
        let score_drop = match self.last {
            Some((previous, previous_score)) => {
                if previous == best_move {
                    self.stable_iterations += 1;
                } else {
                    self.stable_iterations = 0;
                }
                previous_score - score
            }
            None => 0,
        };
        self.last = Some((best_move, score));
        let share = if total_nodes == 0 {
            fraction(params::neutral_node_share_pct())
        } else {
            (best_nodes as f64 / total_nodes as f64).clamp(0.0, 1.0)
        };
        soft_scale(self.stable_iterations, share, score_drop)
    }
}

/// The factor on the soft limit; see [`IterationTimer`]. `score_drop` is in
/// centipawns, negative when the score rose.
pub fn soft_scale(stable_iterations: u32, best_node_share: f64, score_drop: i32) -> f64 {
    let stability = stability_scale(stable_iterations);
    let effort = 1.0 + (fraction(params::neutral_node_share_pct()) - best_node_share);
    let full_drop = params::score_drop_full_cp();
    let falling = 1.0 + score_drop.clamp(0, full_drop) as f64 / (2 * full_drop) as f64;
    let (min, max) = scale_bounds();
    (stability * effort * falling).clamp(min, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_plans_past_the_clock() {
        for time_ms in [1, 5, 20, 50, 100, 1_000, 10_000, 600_000] {
            for inc_ms in [0, 10, 100, 1_000] {
                for mtg in [None, Some(1), Some(2), Some(40)] {
                    let clock = Clock {
                        time_ms,
                        inc_ms,
                        movestogo: mtg,
                    };
                    let b = budget_for_clock(clock, 10);
                    assert!(b.soft <= b.hard, "{clock:?} {b:?}");
                    assert!(
                        b.hard.as_millis() as u64 <= time_ms.saturating_sub(10).max(time_ms / 20),
                        "{clock:?} {b:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn sensible_budget_at_blitz() {
        let b = budget_for_clock(
            Clock {
                time_ms: 10_000,
                inc_ms: 100,
                movestogo: None,
            },
            10,
        );
        assert!(
            b.soft.as_millis() > 200 && b.soft.as_millis() < 600,
            "{b:?}"
        );
        assert!(b.hard.as_millis() < 4_000);
    }

    /// `movestogo` divides what may be spent; without it a sudden-death
    /// clock is divided by the tunable `moves_to_go`, and a very long period
    /// is treated as at most 50 moves.
    #[test]
    fn moves_to_go_divides_the_usable_clock() {
        let soft_ms = |movestogo: Option<u64>| {
            let clock = Clock {
                time_ms: 60_000,
                inc_ms: 0,
                movestogo,
            };
            budget_for_clock(clock, 10).soft.as_millis() as u64
        };
        // 60 s less a reserve of twice the overhead.
        let usable = 60_000 - 20;
        assert_eq!(soft_ms(Some(10)), usable / 10);
        assert_eq!(soft_ms(Some(40)), usable / 40);
        assert_eq!(soft_ms(Some(500)), usable / 50);
        assert_eq!(soft_ms(None), usable / params::moves_to_go() as u64);
        assert_ne!(params::moves_to_go(), 10, "the cases above must differ");
    }

    /// Long games in which every move takes, in real time, the middle of
    /// the soft and hard limits plus the whole overhead must never run the
    /// clock out (with an increment larger than the overhead, even when
    /// every move takes the hard limit).
    #[test]
    fn clock_never_drains_to_zero_over_a_long_game() {
        let cases = [
            (1_000, 10, 10, 300),
            (500, 20, 10, 300),
            (1_000, 30, 10, 300),
            (60_000, 0, 10, 80),
            (1_000, 0, 10, 30),
        ];
        for (base, inc, overhead, moves) in cases {
            for worst_case in [false, true] {
                if worst_case && inc < 2 * overhead {
                    continue;
                }
                let mut time_ms: i64 = base;
                for played in 0..moves {
                    let b = budget_for_clock(
                        Clock {
                            time_ms: time_ms as u64,
                            inc_ms: inc,
                            movestogo: None,
                        },
                        overhead,
                    );
                    let (soft, hard) = (b.soft.as_millis() as i64, b.hard.as_millis() as i64);
                    let thinking = if worst_case { hard } else { (soft + hard) / 2 };
                    time_ms -= thinking + overhead as i64;
                    assert!(
                        time_ms > 0,
                        "{base}+{inc} overhead {overhead}: flagged after {played} moves"
                    );
                    time_ms += inc as i64;
                }
            }
        }
    }

    #[test]
    fn a_settled_best_move_stops_early() {
        let mut timer = IterationTimer::default();
        let mut scale = 0.0;
        for _ in 0..8 {
            scale = timer.update(7, 30, 900, 1000);
        }
        assert!(scale < 0.6, "{scale}");
    }

    #[test]
    fn a_changing_or_contested_best_move_thinks_longer() {
        let mut timer = IterationTimer::default();
        for _ in 0..6 {
            timer.update(7, 30, 600, 1000);
        }
        let settled = timer.update(7, 30, 600, 1000);
        let changed = timer.update(9, 30, 600, 1000);
        assert!(changed > settled * 1.4, "{changed} {settled}");
        let mut contested = IterationTimer::default();
        for _ in 0..7 {
            contested.update(7, 30, 250, 1000);
        }
        let contested = contested.update(7, 30, 250, 1000);
        assert!(contested > settled * 1.2, "{contested} {settled}");
    }

    #[test]
    fn a_falling_score_thinks_longer() {
        let mut steady = IterationTimer::default();
        let mut falling = IterationTimer::default();
        let (mut a, mut b) = (0.0, 0.0);
        for i in 0..5 {
            a = steady.update(7, 30, 600, 1000);
            b = falling.update(7, 30 - 40 * i, 600, 1000);
        }
        assert!(b > a * 1.15, "{b} {a}");
        // A rising score is no reason to stop sooner than a steady one.
        let mut rising = IterationTimer::default();
        let mut c = 0.0;
        for i in 0..5 {
            c = rising.update(7, 30 + 40 * i, 600, 1000);
        }
        assert_eq!(c, a);
    }

    #[test]
    fn soft_scale_stays_bounded() {
        for stable in [0, 1, 5, 100] {
            for share in [0.0, 0.5, 1.0] {
                for drop in [-10_000, 0, 10_000] {
                    let s = soft_scale(stable, share, drop);
                    let (min, max) = scale_bounds();
                    assert!((min..=max).contains(&s), "{s}");
                }
            }
        }
    }

    #[test]
    fn movetime_keeps_overhead() {
        let b = budget_for_movetime(1000, 10);
        assert_eq!(b.hard.as_millis(), 990);
        assert_eq!(budget_for_movetime(5, 10).hard.as_millis(), 1);
    }
}
