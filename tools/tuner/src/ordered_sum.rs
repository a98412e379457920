//! A parallel sum whose floating-point additions come in the same order on
//! every run, whatever the number of threads.

use rayon::prelude::*;

/// The sum of `term` over `items`: each run of `chunk` items summed in turn
/// (the chunks in parallel), then the chunk sums in chunk order. rayon's own
/// `sum` and `reduce` add in the order its work stealing splits the work, so
/// their last bits change from run to run; a fit that compares losses
/// exactly (the tuner keeps the epoch whose held-out loss is lowest) must
/// not depend on that.
pub fn ordered_sum<T: Sync>(items: &[T], chunk: usize, term: impl Fn(&T) -> f64 + Sync) -> f64 {
    let partial: Vec<f64> = items
        .par_chunks(chunk)
        .map(|chunk| chunk.iter().map(&term).sum())
        .collect();
    partial.iter().sum()
}
