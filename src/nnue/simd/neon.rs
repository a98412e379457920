//! NEON: 8 values to a register, part of every ARM64 CPU (and of Rust's
//! aarch64 targets' baseline); tested under qemu by
//! `tools/release/test_arm64.sh`.

use super::{Column, HIDDEN, QA};
use std::arch::aarch64::*;

const LANES: usize = 8;
/// Registers per tile: the accumulator is updated a tile at a time, its
/// running sums kept in registers (ARM64 has 32) while every column is
/// added to them.
const TILE: usize = 16;
const _: () = assert!(HIDDEN.is_multiple_of(LANES * TILE));

/// `out = from + sum(added) - sum(removed)`, wrapping; `out` may be `from`.
/// Generic over the columns' container, so that a move's fixed-size arrays
/// get loops unrolled for their lengths.
///
/// # Safety
/// The CPU must have NEON; `out` and `from` must point to `HIDDEN` values.
#[target_feature(enable = "neon")]
#[inline]
unsafe fn apply<'a>(
    out: *mut i16,
    from: *const i16,
    added: impl AsRef<[&'a Column]>,
    removed: impl AsRef<[&'a Column]>,
) {
    for base in (0..HIDDEN).step_by(LANES * TILE) {
        let mut tile = [vdupq_n_s16(0); TILE];
        // In bounds: base + TILE * LANES <= HIDDEN.
        for (k, v) in tile.iter_mut().enumerate() {
            *v = vld1q_s16(from.add(base + k * LANES));
        }
        for a in added.as_ref() {
            for (k, v) in tile.iter_mut().enumerate() {
                *v = vaddq_s16(*v, vld1q_s16(a.as_ptr().add(base + k * LANES)));
            }
        }
        for r in removed.as_ref() {
            for (k, v) in tile.iter_mut().enumerate() {
                *v = vsubq_s16(*v, vld1q_s16(r.as_ptr().add(base + k * LANES)));
            }
        }
        for (k, v) in tile.iter().enumerate() {
            vst1q_s16(out.add(base + k * LANES), *v);
        }
    }
}

/// `out = from + sum(added) - sum(removed)`, wrapping.
///
/// # Safety
/// The CPU must have NEON, as every ARM64 CPU does.
#[target_feature(enable = "neon")]
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
/// The CPU must have NEON, as every ARM64 CPU does.
#[target_feature(enable = "neon")]
#[inline]
pub unsafe fn add_sub_in_place(acc: &mut Column, added: &[&Column], removed: &[&Column]) {
    let values = acc.as_mut_ptr();
    apply(values, values, added, removed);
}

/// The exact sum of `clamp(a, 0, QA)^2 * w` (see the module `simd` for the
/// split of the square).
///
/// # Safety
/// The CPU must have NEON, as every ARM64 CPU does.
#[target_feature(enable = "neon")]
#[inline]
pub unsafe fn screlu_dot(acc: &Column, weights: &Column) -> i64 {
    let zero = vdupq_n_s16(0);
    let qa = vdupq_n_s16(QA as i16);
    let low_bits = vdupq_n_s16(127);
    let mut high = vdupq_n_s32(0);
    let mut low = vdupq_n_s32(0);
    for i in (0..HIDDEN).step_by(LANES) {
        // In bounds: i + 8 <= HIDDEN.
        let a = vld1q_s16(acc.as_ptr().add(i));
        let w = vld1q_s16(weights.as_ptr().add(i));
        let x = vminq_s16(vmaxq_s16(a, zero), qa);
        // The low 16 bits of x * x: the whole square, read unsigned.
        let square = vmulq_s16(x, x);
        let square_high = vreinterpretq_s16_u16(vshrq_n_u16::<7>(vreinterpretq_u16_s16(square)));
        let square_low = vandq_s16(square, low_bits);
        // Lanes 0-3 and 4-7 of each part, widened to i32 and added.
        high = vmlal_s16(high, vget_low_s16(square_high), vget_low_s16(w));
        high = vmlal_high_s16(high, square_high, w);
        low = vmlal_s16(low, vget_low_s16(square_low), vget_low_s16(w));
        low = vmlal_high_s16(low, square_low, w);
    }
    // Each lane's i32 widened to i64 and summed across lanes.
    vaddlvq_s32(high) * 128 + vaddlvq_s32(low)
}
