//! AVX2: 16 values to a register. Compiled on every x86-64 build, so the
//! tests of a portable build check it too where the CPU has it; only a build
//! for AVX2 (`make`, the x86-64-v3 release) calls it.

use super::{Column, HIDDEN, QA};
use std::arch::x86_64::*;

const LANES: usize = 16;
/// Registers per tile: the accumulator is updated a tile at a time, its
/// running sums kept in registers while every column is added to them.
const TILE: usize = 8;
const _: () = assert!(HIDDEN.is_multiple_of(LANES * TILE));

/// `out = from + sum(added) - sum(removed)`, wrapping; `out` may be `from`.
/// Generic over the columns' container, so that a move's fixed-size arrays
/// get loops unrolled for their lengths.
///
/// # Safety
/// The CPU must have AVX2; `out` and `from` must point to `HIDDEN` values.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn apply<'a>(
    out: *mut i16,
    from: *const i16,
    added: impl AsRef<[&'a Column]>,
    removed: impl AsRef<[&'a Column]>,
) {
    for base in (0..HIDDEN).step_by(LANES * TILE) {
        let mut tile = [_mm256_setzero_si256(); TILE];
        // In bounds: base + TILE * LANES <= HIDDEN.
        for (k, v) in tile.iter_mut().enumerate() {
            *v = _mm256_loadu_si256(from.add(base + k * LANES).cast());
        }
        for a in added.as_ref() {
            for (k, v) in tile.iter_mut().enumerate() {
                let w = _mm256_loadu_si256(a.as_ptr().add(base + k * LANES).cast());
                *v = _mm256_add_epi16(*v, w);
            }
        }
        for r in removed.as_ref() {
            for (k, v) in tile.iter_mut().enumerate() {
                let w = _mm256_loadu_si256(r.as_ptr().add(base + k * LANES).cast());
                *v = _mm256_sub_epi16(*v, w);
            }
        }
        for (k, v) in tile.iter().enumerate() {
            _mm256_storeu_si256(out.add(base + k * LANES).cast(), *v);
        }
    }
}

/// `out = from + sum(added) - sum(removed)`, wrapping.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg_attr(not(target_feature = "avx2"), allow(dead_code))]
#[target_feature(enable = "avx2")]
#[inline]
pub unsafe fn add_sub(out: &mut Column, from: &Column, added: &[&Column], removed: &[&Column]) {
    let (out, from) = (out.as_mut_ptr(), from.as_ptr());
    // A move's shapes (quiet, capture, castling) each get a loop unrolled
    // for their number of columns.
    match (added, removed) {
        (&[a], &[r]) => apply(out, from, [a], [r]),
        (&[a], &[r, s]) => apply(out, from, [a], [r, s]),
        (&[a, b], &[r, s]) => apply(out, from, [a, b], [r, s]),
        _ => apply(out, from, added, removed),
    }
}

/// `acc += sum(added) - sum(removed)`, wrapping.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg_attr(not(target_feature = "avx2"), allow(dead_code))]
#[target_feature(enable = "avx2")]
#[inline]
pub unsafe fn add_sub_in_place(acc: &mut Column, added: &[&Column], removed: &[&Column]) {
    let values = acc.as_mut_ptr();
    apply(values, values, added, removed);
}

/// The exact sum of `clamp(a, 0, QA)^2 * w` (see the module `simd` for the
/// split of the square).
///
/// # Safety
/// The CPU must have AVX2.
#[cfg_attr(not(target_feature = "avx2"), allow(dead_code))]
#[target_feature(enable = "avx2")]
#[inline]
pub unsafe fn screlu_dot(acc: &Column, weights: &Column) -> i64 {
    let zero = _mm256_setzero_si256();
    let qa = _mm256_set1_epi16(QA as i16);
    let low_bits = _mm256_set1_epi16(127);
    let mut high = zero;
    let mut low = zero;
    for i in (0..HIDDEN).step_by(LANES) {
        // In bounds: i + 16 <= HIDDEN.
        let a = _mm256_loadu_si256(acc.as_ptr().add(i).cast());
        let w = _mm256_loadu_si256(weights.as_ptr().add(i).cast());
        let x = _mm256_min_epi16(_mm256_max_epi16(a, zero), qa);
        // The low 16 bits of x * x: the whole square, read unsigned.
        let square = _mm256_mullo_epi16(x, x);
        let square_high = _mm256_srli_epi16::<7>(square);
        let square_low = _mm256_and_si256(square, low_bits);
        high = _mm256_add_epi32(high, _mm256_madd_epi16(square_high, w));
        low = _mm256_add_epi32(low, _mm256_madd_epi16(square_low, w));
    }
    sum_lanes(high) * 128 + sum_lanes(low)
}

#[target_feature(enable = "avx2")]
#[inline]
unsafe fn sum_lanes(v: __m256i) -> i64 {
    let mut lanes = [0i32; 8];
    _mm256_storeu_si256(lanes.as_mut_ptr().cast(), v);
    lanes.iter().map(|&l| i64::from(l)).sum()
}
