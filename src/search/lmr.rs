//! The late-move reduction table.

use crate::parameters as params;

/// Late-move reduction in plies for the `searched`-th move (0-based count of
/// moves already searched) at `depth`: grows with the logarithm of both.
pub(super) fn lmr_reduction(depth: i32, searched: usize) -> i32 {
    // A tuning build computes each value, as the parameters may change
    // between searches; the normal build fills the table once.
    #[cfg(feature = "tune")]
    return lmr_formula(depth.clamp(0, 63) as usize, searched.min(63));
    #[cfg(not(feature = "tune"))]
    {
        static TABLE: std::sync::OnceLock<[[i32; 64]; 64]> = std::sync::OnceLock::new();
        let table = TABLE.get_or_init(|| {
            let mut t = [[0; 64]; 64];
            for (d, row) in t.iter_mut().enumerate() {
                for (n, r) in row.iter_mut().enumerate() {
                    *r = lmr_formula(d, n);
                }
            }
            t
        });
        table[(depth as usize).min(63)][searched.min(63)]
    }
}

fn lmr_formula(depth: usize, searched: usize) -> i32 {
    if depth == 0 || searched == 0 {
        return 0;
    }
    let base = f64::from(params::lmr_base_pct()) / 100.0;
    let divisor = f64::from(params::lmr_divisor_pct()) / 100.0;
    (base + (depth as f64).ln() * (searched as f64).ln() / divisor) as i32
}
