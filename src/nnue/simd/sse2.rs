//! SSE2: 8 values to a register, part of every x86-64 CPU: the version of
//! the portable builds (`make NATIVE=`, the x86-64 release).

use super::{Column, HIDDEN, QA};
use std::arch::x86_64::*;

const LANES: usize = 8;
/// Registers per tile: the accumulator is updated a tile at a time, its
/// running sums kept in registers while every column is added to them.
const TILE: usize = 8;
const _: () = assert!(HIDDEN.is_multiple_of(LANES * TILE));

/// `out = from + sum(added) - sum(removed)`, wrapping; `out` may be `from`.
/// Generic over the columns' container, so that a move's fixed-size arrays
/// get loops unrolled for their lengths.
///
/// # Safety
/// `out` and `from` must point to `HIDDEN` values (SSE2 is part of every
/// x86-64 CPU).
#[inline]
unsafe fn apply<'a>(
    out: *mut i16,
    from: *const i16,
    added: impl AsRef<[&'a Column]>,
    removed: impl AsRef<[&'a Column]>,
) {
    for base in (0..HIDDEN).step_by(LANES * TILE) {
        let mut tile = [_mm_setzero_si128(); TILE];
        // In bounds: base + TILE * LANES <= HIDDEN.
        for (k, v) in tile.iter_mut().enumerate() {
            *v = _mm_loadu_si128(from.add(base + k * LANES).cast());
        }
        for a in added.as_ref() {
            for (k, v) in tile.iter_mut().enumerate() {
                let w = _mm_loadu_si128(a.as_ptr().add(base + k * LANES).cast());
                *v = _mm_add_epi16(*v, w);
            }
        }
        for r in removed.as_ref() {
            for (k, v) in tile.iter_mut().enumerate() {
                let w = _mm_loadu_si128(r.as_ptr().add(base + k * LANES).cast());
                *v = _mm_sub_epi16(*v, w);
            }
        }
        for (k, v) in tile.iter().enumerate() {
            _mm_storeu_si128(out.add(base + k * LANES).cast(), *v);
        }
    }
}

/// `out = from + sum(added) - sum(removed)`, wrapping.
///
/// # Safety
/// None beyond the CPU's SSE2, part of every x86-64 CPU.
#[cfg_attr(target_feature = "avx2", allow(dead_code))]
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
/// None beyond the CPU's SSE2, part of every x86-64 CPU.
#[cfg_attr(target_feature = "avx2", allow(dead_code))]
#[inline]
pub unsafe fn add_sub_in_place(acc: &mut Column, added: &[&Column], removed: &[&Column]) {
    let values = acc.as_mut_ptr();
    apply(values, values, added, removed);
}

/// The exact sum of `clamp(a, 0, QA)^2 * w` (see the module `simd` for the
/// split of the square).
///
/// # Safety
/// None beyond the CPU's SSE2, part of every x86-64 CPU.
#[cfg_attr(target_feature = "avx2", allow(dead_code))]
#[inline]
pub unsafe fn screlu_dot(acc: &Column, weights: &Column) -> i64 {
    let zero = _mm_setzero_si128();
    let qa = _mm_set1_epi16(QA as i16);
    let low_bits = _mm_set1_epi16(127);
    let mut high = zero;
    let mut low = zero;
    for i in (0..HIDDEN).step_by(LANES) {
        // In bounds: i + 8 <= HIDDEN.
        let a = _mm_loadu_si128(acc.as_ptr().add(i).cast());
        let w = _mm_loadu_si128(weights.as_ptr().add(i).cast());
        let x = _mm_min_epi16(_mm_max_epi16(a, zero), qa);
        // The low 16 bits of x * x: the whole square, read unsigned.
        let square = _mm_mullo_epi16(x, x);
        let square_high = _mm_srli_epi16::<7>(square);
        let square_low = _mm_and_si128(square, low_bits);
        high = _mm_add_epi32(high, _mm_madd_epi16(square_high, w));
        low = _mm_add_epi32(low, _mm_madd_epi16(square_low, w));
    }
    sum_lanes(high) * 128 + sum_lanes(low)
}

#[inline]
unsafe fn sum_lanes(v: __m128i) -> i64 {
    let mut lanes = [0i32; 4];
    _mm_storeu_si128(lanes.as_mut_ptr().cast(), v);
    lanes.iter().map(|&l| i64::from(l)).sum()
}
