//! The aspiration window of one root iteration: where it starts around the
//! previous iteration's score, how it widens on the side that fails, and
//! how deep each try searches.

use super::{INFINITY, MATE_BOUND};
use crate::parameters as params;

/// The window and depth of an iteration's tries at the root.
pub(super) struct Aspiration {
    pub(super) alpha: i32,
    pub(super) beta: i32,
    delta: i32,
    /// Fail highs in a row since the first try or the last fail low.
    fail_highs: i32,
}

/// What a try's score says about the window.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Outcome {
    /// The score is inside the window: the iteration is done.
    Exact,
    /// The score was outside; the window has widened for another try.
    Retry,
}

impl Aspiration {
    /// The first window of an iteration at `depth` after one that scored
    /// `previous`: full below `aspiration_min_depth` and after a mate
    /// score, else around `previous`, wider for larger scores because they
    /// swing more between iterations.
    pub(super) fn new(depth: i32, previous: i32) -> Self {
        let delta =
            params::aspiration_delta() + previous * previous / params::aspiration_score_div();
        let (alpha, beta) =
            if depth >= params::aspiration_min_depth() && previous.abs() < MATE_BOUND {
                (
                    (previous - delta).max(-INFINITY),
                    (previous + delta).min(INFINITY),
                )
            } else {
                (-INFINITY, INFINITY)
            };
        Aspiration {
            alpha,
            beta,
            delta,
            fail_highs: 0,
        }
    }

    /// The depth of the next try at an iteration of `depth`: a ply less
    /// for each fail high in a row, since the move that beat the window
    /// mostly holds and the full depth would only prove it again.
    pub(super) fn try_depth(&self, depth: i32) -> i32 {
        (depth - self.fail_highs).max(1)
    }

    /// Takes a try's score: inside the window it is final; outside, the
    /// window moves past it on the failing side and grows.
    pub(super) fn update(&mut self, score: i32) -> Outcome {
        if score <= self.alpha {
            // Fail low: centre the window lower and search at full depth.
            self.beta = (self.alpha + self.beta) / 2;
            self.alpha = (score - self.delta).max(-INFINITY);
            self.fail_highs = 0;
        } else if score >= self.beta {
            self.beta = (score + self.delta).min(INFINITY);
            self.fail_highs += 1;
        } else {
            return Outcome::Exact;
        }
        self.delta += self.delta * params::aspiration_growth_pct() / 100;
        if self.delta > params::aspiration_max_delta() {
            self.alpha = -INFINITY;
            self.beta = INFINITY;
        }
        Outcome::Retry
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_window_grows_with_the_previous_score() {
        let level = Aspiration::new(10, 0);
        assert_eq!((level.alpha, level.beta), (-15, 15));
        // 500 * 500 / 12000 = 20 more on each side.
        let ahead = Aspiration::new(10, 500);
        assert_eq!((ahead.alpha, ahead.beta), (500 - 35, 500 + 35));
        let behind = Aspiration::new(10, -500);
        assert_eq!((behind.alpha, behind.beta), (-500 - 35, -500 + 35));
    }

    #[test]
    fn shallow_iterations_and_mate_scores_search_the_full_window() {
        for (depth, previous) in [(3, 0), (1, 40), (10, MATE_BOUND), (10, -MATE_BOUND - 5)] {
            let window = Aspiration::new(depth, previous);
            assert_eq!(
                (window.alpha, window.beta),
                (-INFINITY, INFINITY),
                "{depth} {previous}"
            );
        }
    }

    #[test]
    fn each_fail_high_in_a_row_searches_a_ply_shallower_until_a_fail_low() {
        let mut window = Aspiration::new(10, 0);
        assert_eq!(window.try_depth(10), 10);
        assert_eq!(window.update(15), Outcome::Retry);
        assert_eq!((window.alpha, window.beta), (-15, 30));
        assert_eq!(window.try_depth(10), 9);
        assert_eq!(window.update(40), Outcome::Retry);
        assert_eq!(window.try_depth(10), 8);
        // Never below one ply.
        assert_eq!(window.try_depth(2), 1);
        assert_eq!(window.update(-15), Outcome::Retry);
        assert_eq!(window.try_depth(10), 10);
    }

    #[test]
    fn a_fail_low_moves_the_window_down_and_widens_it() {
        let mut window = Aspiration::new(10, 0);
        assert_eq!(window.update(-20), Outcome::Retry);
        // beta to the old window's middle, alpha a half-width below the
        // score; then the half-width grows by half.
        assert_eq!((window.alpha, window.beta), (-35, 0));
        assert_eq!(window.update(-30), Outcome::Exact);
        assert_eq!(window.update(-60), Outcome::Retry);
        // The half-width is now 22; beta halfway from -35 to 0, rounded
        // towards zero.
        assert_eq!((window.alpha, window.beta), (-60 - 22, -17));
    }

    #[test]
    fn a_window_wider_than_the_limit_opens_fully() {
        let mut window = Aspiration::new(10, 0);
        let mut score = 0;
        let mut tries = 0;
        while (window.alpha, window.beta) != (-INFINITY, INFINITY) {
            score += 1000;
            assert_eq!(window.update(score), Outcome::Retry);
            tries += 1;
            assert!(tries < 20, "the window never opened");
        }
        assert_eq!(window.update(score), Outcome::Exact);
    }
}
