//! Plain Rust: the reference every vector version must equal exactly, and
//! the version of targets without one.

use super::{Column, HIDDEN, QA};

/// `out = from + sum(added) - sum(removed)`, wrapping in i16 as the vector
/// versions do (a real net never comes near the wrap; wrapping keeps every
/// order of the same additions equal).
pub fn add_sub(out: &mut Column, from: &Column, added: &[&Column], removed: &[&Column]) {
    *out = *from;
    add_sub_in_place(out, added, removed);
}

/// `acc += sum(added) - sum(removed)`, wrapping.
pub fn add_sub_in_place(acc: &mut Column, added: &[&Column], removed: &[&Column]) {
    for i in 0..HIDDEN {
        let mut v = acc[i];
        for a in added {
            v = v.wrapping_add(a[i]);
        }
        for r in removed {
            v = v.wrapping_sub(r[i]);
        }
        acc[i] = v;
    }
}

/// The exact sum of `clamp(a, 0, QA)^2 * w`, one i64 product per value.
pub fn screlu_dot(acc: &Column, weights: &Column) -> i64 {
    acc.iter()
        .zip(weights.iter())
        .map(|(&a, &w)| {
            let x = i64::from(a).clamp(0, i64::from(QA));
            x * x * i64::from(w)
        })
        .sum()
}
