//! The net's vector kernels, the same small set in one module per
//! instruction set: add and subtract feature columns into an accumulator
//! (i16, wrapping), and the output layer's dot product `sum of clamp(a, 0,
//! QA)^2 * w`. AVX2 where the build targets it (`make` builds for the
//! building CPU, and the x86-64-v3 release), SSE2 on any other x86-64
//! (`make NATIVE=`, the portable x86-64 release), NEON on ARM64 (part of
//! every ARM64 CPU), plain Rust (`scalar`) elsewhere. The choice is made at
//! compile time from the build's target features. All give the same exact
//! integers, which the tests check, so a net evaluates alike and `bench`
//! counts the same nodes everywhere.
//!
//! The dot product's vector versions keep 16-bit products: the square (at
//! most 255^2 = 65025) fits u16 but not i16, so it is split into `high *
//! 128 + low`, both within i16, and each part is multiplied by the weight
//! and summed into i32 lanes (x86 `pmaddwd` sums pairs; NEON `smlal` widens
//! and adds one product per lane, twice per step), instead of 32-bit
//! multiplications. |high * w| <= 508 * 512 and |low * w| <= 127 * 512, and
//! a lane sums at most HIDDEN / 4 such products (SSE2 and NEON; AVX2 half
//! that), which stays far within i32 (output weights are checked at load
//! against `MAX_OUTPUT_WEIGHT`).

use super::{HIDDEN, QA};

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "aarch64")]
mod neon;
#[cfg_attr(any(target_arch = "x86_64", target_arch = "aarch64"), allow(dead_code))]
pub mod scalar;
#[cfg(target_arch = "x86_64")]
mod sse2;

/// One accumulator's values, or one weight column (an input's, the bias,
/// an output half).
pub type Column = [i16; HIDDEN];

const _: () = assert!(
    HIDDEN.is_multiple_of(128),
    "the vector loops take up to 128 values at once"
);

/// Runs the build's version of a kernel: `$name` of the module the target
/// features pick.
macro_rules! dispatch {
    ($name:ident($($arg:expr),*)) => {{
        #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
        // SAFETY: the build targets AVX2 (checked by the cfg above).
        let result = unsafe { avx2::$name($($arg),*) };
        #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
        // SAFETY: SSE2 is part of every x86-64 CPU.
        let result = unsafe { sse2::$name($($arg),*) };
        #[cfg(target_arch = "aarch64")]
        // SAFETY: NEON is part of every ARM64 CPU (and of Rust's aarch64
        // targets' baseline).
        let result = unsafe { neon::$name($($arg),*) };
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        let result = scalar::$name($($arg),*);
        result
    }};
}

/// `out = from + sum(added) - sum(removed)`: a move's update (one column
/// each way for a quiet move, two removed for a capture, two each way for
/// castling) read from the parent's values.
#[inline]
pub fn add_sub(out: &mut Column, from: &Column, added: &[&Column], removed: &[&Column]) {
    dispatch!(add_sub(out, from, added, removed))
}

/// `acc += sum(added) - sum(removed)`: a refresh from the bias, or the
/// refresh cache brought to the board.
#[inline]
pub fn add_sub_in_place(acc: &mut Column, added: &[&Column], removed: &[&Column]) {
    dispatch!(add_sub_in_place(acc, added, removed))
}

/// The exact sum of `clamp(a, 0, QA)^2 * w` over the accumulator.
#[inline]
pub fn screlu_dot(acc: &Column, weights: &Column) -> i64 {
    dispatch!(screlu_dot(acc, weights))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::network::MAX_OUTPUT_WEIGHT;

    fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    /// Accumulators across the whole i16 range (most of it clamped) and
    /// weights up to the load-time bound, then the extremes.
    fn dot_cases() -> Vec<(Column, Column)> {
        let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
        let bound = i64::from(MAX_OUTPUT_WEIGHT);
        let mut cases = Vec::new();
        for round in 0..200 {
            let mut acc = [0i16; HIDDEN];
            let mut weights = [0i16; HIDDEN];
            for (a, w) in acc.iter_mut().zip(weights.iter_mut()) {
                *a = if round % 2 == 0 {
                    next() as i16
                } else {
                    (next() % 400) as i16 - 100
                };
                *w = ((next() % (2 * bound as u64 + 1)) as i64 - bound) as i16;
            }
            cases.push((acc, weights));
        }
        let most = MAX_OUTPUT_WEIGHT as i16;
        cases.push(([QA as i16; HIDDEN], [most; HIDDEN]));
        cases.push(([i16::MAX; HIDDEN], [-most; HIDDEN]));
        cases.push(([i16::MIN; HIDDEN], [most; HIDDEN]));
        cases
    }

    /// A start and columns to add and remove: values across the whole i16
    /// range (so sums wrap), from no column each way up to a whole board's
    /// 32 each way (a refresh from the cache may remove as many as it adds).
    struct UpdateCase {
        from: Column,
        columns: Vec<Column>,
        added: usize,
    }

    fn update_cases() -> Vec<UpdateCase> {
        let mut next = xorshift(0x2545_F491_4F6C_DD1D);
        let column = |next: &mut dyn FnMut() -> u64| {
            let mut c = [0i16; HIDDEN];
            c.iter_mut().for_each(|v| *v = next() as i16);
            c
        };
        let mut cases = Vec::new();
        for added in 0..=32 {
            for removed in [0, 1, 2, 3, 5, 17, 32] {
                let from = column(&mut next);
                let columns = (0..added + removed).map(|_| column(&mut next)).collect();
                cases.push(UpdateCase {
                    from,
                    columns,
                    added,
                });
            }
        }
        cases
    }

    type AddSub = unsafe fn(&mut Column, &Column, &[&Column], &[&Column]);
    type AddSubInPlace = unsafe fn(&mut Column, &[&Column], &[&Column]);
    type Dot = unsafe fn(&Column, &Column) -> i64;

    /// Checks one instruction set's kernels against `scalar`'s.
    ///
    /// # Safety
    /// The CPU must have the instruction set.
    unsafe fn equals_the_reference(add_sub: AddSub, in_place: AddSubInPlace, dot: Dot) {
        for case in update_cases() {
            let refs: Vec<&Column> = case.columns.iter().collect();
            let (added, removed) = refs.split_at(case.added);
            let mut expected = [0i16; HIDDEN];
            scalar::add_sub(&mut expected, &case.from, added, removed);
            let mut out = [0i16; HIDDEN];
            add_sub(&mut out, &case.from, added, removed);
            assert_eq!(
                out,
                expected,
                "{} added, {} removed",
                added.len(),
                removed.len()
            );
            let mut acc = case.from;
            in_place(&mut acc, added, removed);
            assert_eq!(acc, expected, "in place, {} added", added.len());
        }
        for (acc, weights) in dot_cases() {
            assert_eq!(dot(&acc, &weights), scalar::screlu_dot(&acc, &weights));
        }
    }

    /// The reference itself, on a case worked by hand: wrapping sums, and
    /// the clamp at 0 and QA.
    #[test]
    fn the_reference_wraps_and_clamps() {
        let mut from = [0i16; HIDDEN];
        from[0] = i16::MAX;
        from[1] = 7;
        let mut plus = [0i16; HIDDEN];
        plus[0] = 1;
        plus[1] = 5;
        let mut minus = [0i16; HIDDEN];
        minus[1] = 20;
        let mut out = [0i16; HIDDEN];
        scalar::add_sub(&mut out, &from, &[&plus], &[&minus]);
        assert_eq!((out[0], out[1], out[2]), (i16::MIN, -8, 0));
        let mut acc = [0i16; HIDDEN];
        acc[0] = 300;
        acc[1] = 10;
        acc[2] = -40;
        let weights = [3i16; HIDDEN];
        let qa = i64::from(QA);
        assert_eq!(scalar::screlu_dot(&acc, &weights), (qa * qa + 100) * 3);
    }

    #[test]
    fn the_build_s_version_equals_the_reference() {
        // SAFETY: the dispatching functions are safe (the build's version
        // runs on the CPU the build targets).
        unsafe { equals_the_reference(add_sub, add_sub_in_place, screlu_dot) };
        let extreme = i64::from(QA * QA) * i64::from(MAX_OUTPUT_WEIGHT) * HIDDEN as i64;
        let most = MAX_OUTPUT_WEIGHT as i16;
        assert_eq!(screlu_dot(&[QA as i16; HIDDEN], &[most; HIDDEN]), extreme);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn sse2_and_avx2_equal_the_reference() {
        // SAFETY: SSE2 is part of every x86-64 CPU.
        unsafe { equals_the_reference(sse2::add_sub, sse2::add_sub_in_place, sse2::screlu_dot) };
        let has_avx2 = is_x86_feature_detected!("avx2");
        if has_avx2 {
            // SAFETY: the CPU has AVX2 (checked above).
            unsafe {
                equals_the_reference(avx2::add_sub, avx2::add_sub_in_place, avx2::screlu_dot)
            };
        }
        assert!(has_avx2 || !cfg!(target_feature = "avx2"));
    }

    #[cfg(target_arch = "aarch64")]
    #[test]
    fn neon_equals_the_reference() {
        // SAFETY: NEON is part of every ARM64 CPU.
        unsafe { equals_the_reference(neon::add_sub, neon::add_sub_in_place, neon::screlu_dot) };
    }
}
