//! Time management: turns the `go` clock parameters into a soft limit (do not
//! start another iteration after it) and a hard limit (abort the search).

use std::time::Duration;

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

/// Moves assumed left in a sudden-death game.
const DEFAULT_MOVES_TO_GO: u64 = 30;
/// Never plan to use more than this share of the remaining clock on one move.
const MAX_SHARE_PERCENT: u64 = 40;

/// Budget for a move with a running clock. `overhead_ms` covers the GUI's and
/// the operating system's latency; it is kept in reserve on every move.
pub fn budget_for_clock(clock: Clock, overhead_ms: u64) -> TimeBudget {
    let mtg = clock.movestogo.unwrap_or(DEFAULT_MOVES_TO_GO).clamp(1, 50);
    // What may be spent without risk: the clock minus a reserve for overhead
    // on this and the next moves.
    let reserve = overhead_ms.saturating_mul(2).max(overhead_ms + 5);
    let usable = clock.time_ms.saturating_sub(reserve);
    // Each move also costs the overhead in real time, which the increment
    // must pay for first: spending the whole increment on thinking drains a
    // low clock by the latency on every move until it flags.
    let inc = clock.inc_ms.saturating_sub(overhead_ms);
    let per_move = usable / mtg + inc * 3 / 4;
    let cap = if mtg == 1 {
        usable
    } else {
        usable * MAX_SHARE_PERCENT / 100
    };
    let soft = per_move.min(cap);
    let hard = (per_move * 3).min(cap).max(soft);
    // With almost nothing on the clock, still search a little: a move at
    // depth one beats a flag, and `hard` never exceeds the time left.
    let floor = (clock.time_ms / 20).min(clock.time_ms.saturating_sub(overhead_ms));
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
    fn movetime_keeps_overhead() {
        let b = budget_for_movetime(1000, 10);
        assert_eq!(b.hard.as_millis(), 990);
        assert_eq!(budget_for_movetime(5, 10).hard.as_millis(), 1);
    }
}
