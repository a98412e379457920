//! Memory for the large tables that the search reads at random, node after
//! node: the net's first-layer weights, the continuation history and the
//! transposition table. Each is placed on 2 MB boundaries and, on Linux,
//! advised onto transparent huge pages, so that one TLB entry covers 2 MB of
//! it instead of 4 KB: the first-level TLB of a current x86-64 core covers
//! a few hundred KB of 4 KB pages, so a table of a megabyte or more read at
//! random would miss it at most reads.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;

/// The huge page size of x86-64 and of ARM64 with 4 KB base pages.
pub const HUGE_PAGE: usize = 2 << 20;

/// The smallest page the systems hand out.
pub const PAGE: usize = 4096;

/// Types for which all-zero bytes are a valid value.
///
/// # Safety
/// An implementor must take the all-zero bit pattern as a valid value and
/// own nothing that needs dropping (integers, arrays of them, atomics of
/// them): the memory is handed out zeroed and freed without drops.
pub unsafe trait ZeroIsValid {}

// SAFETY: an integer takes all-zero bytes as 0.
unsafe impl ZeroIsValid for i16 {}
// SAFETY: an array of such values is such a value.
unsafe impl<T: ZeroIsValid, const N: usize> ZeroIsValid for [T; N] {}

/// `len` values of `T`, zeroed, starting on a 2 MB boundary.
///
/// The memory is taken from the allocator as plain zeroed bytes (alignment
/// 8, 2 MB more than needed) rather than with 2 MB alignment: the allocator
/// serves a small alignment of a large block with `calloc`, whose fresh
/// pages the system zeroes lazily at their first touch, while a large
/// alignment makes it write every byte itself (seconds for a table of
/// gigabytes). The values start at the first 2 MB boundary inside.
pub struct HugePageSlice<T: ZeroIsValid> {
    base: NonNull<u8>,
    layout: Layout,
    values: NonNull<T>,
    len: usize,
}

// SAFETY: the memory is owned by this value alone and reached only through
// `&[T]` and `&mut [T]`, so it is as shareable and sendable as `T` is.
unsafe impl<T: ZeroIsValid + Send> Send for HugePageSlice<T> {}
unsafe impl<T: ZeroIsValid + Sync> Sync for HugePageSlice<T> {}

impl<T: ZeroIsValid> HugePageSlice<T> {
    /// `len` zeroed values; like `Vec`, aborts when the memory cannot be
    /// had (the tables that can be large use `try_zeroed`).
    pub fn zeroed(len: usize) -> HugePageSlice<T> {
        HugePageSlice::try_zeroed(len).unwrap_or_else(|| {
            let bytes = len.saturating_mul(std::mem::size_of::<T>());
            std::alloc::handle_alloc_error(
                Layout::from_size_align(bytes, 8).unwrap_or(Layout::new::<T>()),
            )
        })
    }

    /// `len` zeroed values, or `None` when the memory cannot be had.
    pub fn try_zeroed(len: usize) -> Option<HugePageSlice<T>> {
        const { assert!(std::mem::align_of::<T>() <= HUGE_PAGE) };
        let bytes = len.checked_mul(std::mem::size_of::<T>())?;
        // Whole huge pages for the values, and one more to align them.
        let span = bytes.max(1).checked_next_multiple_of(HUGE_PAGE)?;
        let layout = Layout::from_size_align(span.checked_add(HUGE_PAGE)?, 8).ok()?;
        // SAFETY: `layout` has a non-zero size.
        let base = NonNull::new(unsafe { alloc_zeroed(layout) })?;
        let offset = (base.as_ptr() as usize).next_multiple_of(HUGE_PAGE) - base.as_ptr() as usize;
        // SAFETY: offset < HUGE_PAGE, so [base + offset, base + offset +
        // span) lies inside the allocation of span + HUGE_PAGE bytes.
        let start = unsafe { base.add(offset) };
        advise_huge_pages(start.as_ptr(), span);
        Some(HugePageSlice {
            base,
            layout,
            values: start.cast(),
            len,
        })
    }

    /// A copy of `values`.
    pub fn from_slice(values: &[T]) -> HugePageSlice<T>
    where
        T: Copy,
    {
        let mut copy = HugePageSlice::zeroed(values.len());
        copy.copy_from_slice(values);
        copy
    }

    /// The bytes the values occupy, whole huge pages of them: the span that
    /// the system backs page by page.
    pub fn span_bytes(&self) -> usize {
        self.layout.size() - HUGE_PAGE
    }

    /// The first byte of the values.
    pub fn start(&mut self) -> *mut u8 {
        self.values.as_ptr().cast()
    }
}

impl<T: ZeroIsValid> std::ops::Deref for HugePageSlice<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `values` points to `len` values inside the live
        // allocation, aligned (2 MB) and initialised (all-zero bytes are a
        // valid `T`, or values written since through `&mut [T]`).
        unsafe { std::slice::from_raw_parts(self.values.as_ptr(), self.len) }
    }
}

impl<T: ZeroIsValid> std::ops::DerefMut for HugePageSlice<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as for `deref`, and `&mut self` is the only access.
        unsafe { std::slice::from_raw_parts_mut(self.values.as_ptr(), self.len) }
    }
}

impl<'a, T: ZeroIsValid> IntoIterator for &'a HugePageSlice<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: ZeroIsValid> Drop for HugePageSlice<T> {
    fn drop(&mut self) {
        // The values need no drop: a `ZeroIsValid` type owns nothing.
        // SAFETY: `base` was allocated by `alloc_zeroed(self.layout)`.
        unsafe { dealloc(self.base.as_ptr(), self.layout) }
    }
}

impl<T: ZeroIsValid + Copy> Clone for HugePageSlice<T> {
    fn clone(&self) -> Self {
        HugePageSlice::from_slice(self)
    }
}

impl<T: ZeroIsValid + PartialEq> PartialEq for HugePageSlice<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: ZeroIsValid + Eq> Eq for HugePageSlice<T> {}

impl<T: ZeroIsValid + std::fmt::Debug> std::fmt::Debug for HugePageSlice<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(target_os = "linux")]
fn advise_huge_pages(start: *mut u8, len: usize) {
    // SAFETY: [start, start + len) lies inside a live allocation and starts
    // on a page; MADV_HUGEPAGE only changes how the kernel backs those
    // pages, never their contents, and a failure is harmless.
    unsafe {
        libc::madvise(start.cast(), len, libc::MADV_HUGEPAGE);
    }
}

/// Windows large pages need a privilege that users rarely hold, so none
/// are asked for; macOS has no advice of the kind.
#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_start: *mut u8, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_start_zeroed_on_a_huge_page_and_keep_what_is_written() {
        for len in [0, 1, 1000, HUGE_PAGE / 2 + 7] {
            let mut slice = HugePageSlice::<[i16; 3]>::zeroed(len);
            assert_eq!(slice.len(), len);
            assert_eq!(slice.as_ptr() as usize % HUGE_PAGE, 0);
            assert!(slice.span_bytes() >= len * 6);
            assert!(slice.iter().all(|v| *v == [0; 3]));
            for (i, v) in slice.iter_mut().enumerate() {
                *v = [i as i16, (i as i16).wrapping_neg(), 7];
            }
            let copy = slice.clone();
            assert_eq!(copy.as_ptr() as usize % HUGE_PAGE, 0);
            assert_eq!(copy, slice);
            assert!(copy
                .iter()
                .enumerate()
                .all(|(i, v)| *v == [i as i16, (i as i16).wrapping_neg(), 7]));
        }
    }

    /// The kernel marks a range advised onto huge pages with `hg` among
    /// its `VmFlags` (where it has transparent huge pages at all).
    #[cfg(target_os = "linux")]
    #[test]
    fn the_values_are_advised_onto_huge_pages() {
        if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage").exists() {
            return;
        }
        let slice = HugePageSlice::<i16>::zeroed(HUGE_PAGE);
        let address = slice.as_ptr() as usize;
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        let mut flags = None;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ') {
                if let Some((from, to)) = range.split_once('-') {
                    if let (Ok(from), Ok(to)) = (
                        usize::from_str_radix(from, 16),
                        usize::from_str_radix(to, 16),
                    ) {
                        inside = (from..to).contains(&address);
                        continue;
                    }
                }
            }
            if inside {
                if let Some(f) = line.strip_prefix("VmFlags:") {
                    flags = Some(f.to_string());
                }
            }
        }
        let flags = flags.expect("the slice's mapping in /proc/self/smaps");
        assert!(flags.split_whitespace().any(|f| f == "hg"), "{flags}");
    }

    #[test]
    fn impossible_sizes_are_refused() {
        assert!(HugePageSlice::<i16>::try_zeroed(usize::MAX / 2).is_none());
        assert!(HugePageSlice::<i16>::try_zeroed(usize::MAX).is_none());
    }
}
