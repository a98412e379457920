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
    let per_move = usable / mtg + clock.inc_ms * 3 / 4;
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

    #[test]
    fn movetime_keeps_overhead() {
        let b = budget_for_movetime(1000, 10);
        assert_eq!(b.hard.as_millis(), 990);
        assert_eq!(budget_for_movetime(5, 10).hard.as_millis(), 1);
    }
}
