//! The output layer's dot product, `sum of clamp(a, 0, QA)^2 * w`, in one
//! version per instruction set: AVX2 where the build targets it (`make`
//! builds for the building CPU), SSE2 on any other x86-64 (`make NATIVE=`,
//! the portable release), NEON on ARM64 (part of every ARM64 CPU), plain
//! Rust elsewhere. All give the same exact integer, which the tests check,
//! so a net evaluates alike and `bench` counts the same nodes everywhere.
//!
//! The vector versions keep 16-bit products: the square (at most 255^2 =
//! 65025) fits u16 but not i16, so it is split into `high * 128 + low`,
//! both within i16, and each part is multiplied by the weight and summed
//! into i32 lanes (x86 `pmaddwd` sums pairs; NEON `smlal` widens and adds
//! one product per lane, twice per step), instead of 32-bit
//! multiplications. |high * w| <= 508 * 512 and |low * w| <= 127 * 512, and
//! a lane sums at most HIDDEN / 4 such products (SSE2 and NEON; AVX2 half
//! that), which stays far within i32 (output weights are checked at load
//! against `MAX_OUTPUT_WEIGHT`).

use super::{HIDDEN, QA};

const _: () = assert!(
    HIDDEN.is_multiple_of(16),
    "the vector loops take 16 values at once"
);

/// The exact sum of `clamp(a, 0, QA)^2 * w` over the accumulator.
#[inline]
pub fn screlu_dot(acc: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        // SAFETY: the build targets AVX2 (checked by the cfg above).
        unsafe { avx2::screlu_dot(acc, weights) }
    }
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    {
        // SAFETY: SSE2 is part of every x86-64 CPU.
        unsafe { sse2::screlu_dot(acc, weights) }
    }
    #[cfg(target_arch = "aarch64")]
    {
        // SAFETY: NEON is part of every ARM64 CPU (and of Rust's aarch64
        // targets' baseline).
        unsafe { neon::screlu_dot(acc, weights) }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        scalar_screlu_dot(acc, weights)
    }
}

/// The reference: one i64 product per value.
#[cfg_attr(any(target_arch = "x86_64", target_arch = "aarch64"), allow(dead_code))]
pub fn scalar_screlu_dot(acc: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i64 {
    acc.iter()
        .zip(weights.iter())
        .map(|(&a, &w)| {
            let x = i64::from(a).clamp(0, i64::from(QA));
            x * x * i64::from(w)
        })
        .sum()
}

/// Compiled on every x86-64 build, so the tests of a portable build check it
/// too where the CPU has AVX2; only a build for AVX2 calls it.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{HIDDEN, QA};
    use std::arch::x86_64::*;

    /// # Safety
    /// The CPU must have AVX2.
    #[cfg_attr(not(target_feature = "avx2"), allow(dead_code))]
    #[target_feature(enable = "avx2")]
    #[inline]
    pub unsafe fn screlu_dot(acc: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i64 {
        let zero = _mm256_setzero_si256();
        let qa = _mm256_set1_epi16(QA as i16);
        let low_bits = _mm256_set1_epi16(127);
        let mut high = zero;
        let mut low = zero;
        for i in (0..HIDDEN).step_by(16) {
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
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use super::{HIDDEN, QA};
    use std::arch::x86_64::*;

    /// # Safety
    /// SSE2 is part of every x86-64 CPU.
    #[cfg_attr(target_feature = "avx2", allow(dead_code))]
    #[inline]
    pub unsafe fn screlu_dot(acc: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i64 {
        let zero = _mm_setzero_si128();
        let qa = _mm_set1_epi16(QA as i16);
        let low_bits = _mm_set1_epi16(127);
        let mut high = zero;
        let mut low = zero;
        for i in (0..HIDDEN).step_by(8) {
            // In bounds: i + 8 <= HIDDEN.
            let a = _mm_loadu_si128(acc.as_ptr().add(i).cast());
            let w = _mm_loadu_si128(weights.as_ptr().add(i).cast());
            let x = _mm_min_epi16(_mm_max_epi16(a, zero), qa);
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
}

#[cfg(target_arch = "aarch64")]
mod neon {
    use super::{HIDDEN, QA};
    use std::arch::aarch64::*;

    /// # Safety
    /// The CPU must have NEON, as every ARM64 CPU does.
    #[target_feature(enable = "neon")]
    #[inline]
    pub unsafe fn screlu_dot(acc: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i64 {
        let zero = vdupq_n_s16(0);
        let qa = vdupq_n_s16(QA as i16);
        let low_bits = vdupq_n_s16(127);
        let mut high = vdupq_n_s32(0);
        let mut low = vdupq_n_s32(0);
        for i in (0..HIDDEN).step_by(8) {
            // In bounds: i + 8 <= HIDDEN.
            let a = vld1q_s16(acc.as_ptr().add(i));
            let w = vld1q_s16(weights.as_ptr().add(i));
            let x = vminq_s16(vmaxq_s16(a, zero), qa);
            // The low 16 bits of x * x: the whole square, read unsigned.
            let square = vmulq_s16(x, x);
            let square_high =
                vreinterpretq_s16_u16(vshrq_n_u16::<7>(vreinterpretq_u16_s16(square)));
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::network::MAX_OUTPUT_WEIGHT;

    /// Accumulators across the whole i16 range (most of it clamped) and
    /// weights up to the load-time bound, then the extremes.
    fn cases() -> Vec<([i16; HIDDEN], [i16; HIDDEN])> {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
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

    #[test]
    fn the_build_s_version_equals_the_reference() {
        for (acc, weights) in cases() {
            assert_eq!(
                screlu_dot(&acc, &weights),
                scalar_screlu_dot(&acc, &weights)
            );
        }
        let extreme = i64::from(QA * QA) * i64::from(MAX_OUTPUT_WEIGHT) * HIDDEN as i64;
        let most = MAX_OUTPUT_WEIGHT as i16;
        assert_eq!(screlu_dot(&[QA as i16; HIDDEN], &[most; HIDDEN]), extreme);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn sse2_and_avx2_equal_the_reference() {
        let has_avx2 = is_x86_feature_detected!("avx2");
        for (acc, weights) in cases() {
            let reference = scalar_screlu_dot(&acc, &weights);
            // SAFETY: SSE2 is part of every x86-64 CPU.
            assert_eq!(unsafe { sse2::screlu_dot(&acc, &weights) }, reference);
            if has_avx2 {
                // SAFETY: the CPU has AVX2 (checked above).
                assert_eq!(unsafe { avx2::screlu_dot(&acc, &weights) }, reference);
            }
        }
        assert!(has_avx2 || !cfg!(target_feature = "avx2"));
    }

    #[cfg(target_arch = "aarch64")]
    #[test]
    fn neon_equals_the_reference() {
        for (acc, weights) in cases() {
            // SAFETY: NEON is part of every ARM64 CPU.
            let neon = unsafe { neon::screlu_dot(&acc, &weights) };
            assert_eq!(neon, scalar_screlu_dot(&acc, &weights));
        }
    }
}
