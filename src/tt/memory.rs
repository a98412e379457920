//! The table's memory: how it is taken from the system, advised onto huge
//! pages, made resident and split among threads for the table's bulk work.

use std::alloc::{alloc_zeroed, Layout};

use super::{Bucket, MB};

/// The smallest page the systems hand out, for the page-by-page work.
const PAGE: usize = 4096;

/// The table's memory: `count` buckets, 64-byte aligned, all zero.
///
/// It is taken from the allocator as plain zeroed bytes (alignment 8, a
/// bucket more than needed) rather than as `[Bucket]`: the allocator serves
/// a small alignment with `calloc`, whose large blocks are fresh pages the
/// operating system zeroes lazily (by the kernel, at the first touch of
/// each, which `touch_pages` brings forward). Asking for 64-byte alignment
/// instead makes the allocator write every byte itself as well (16.6 s for
/// 4 GB at 478e9c9). The buckets start at the first 64-byte boundary.
pub(super) struct BucketMemory {
    base: *mut u8,
    layout: Layout,
    buckets: *const Bucket,
    count: usize,
}

// SAFETY: the memory is owned by this value alone and only reached through
// `&[Bucket]`; a `Bucket` holds atomics, which are safe to share and send.
unsafe impl Send for BucketMemory {}
unsafe impl Sync for BucketMemory {}

impl std::ops::Deref for BucketMemory {
    type Target = [Bucket];
    fn deref(&self) -> &[Bucket] {
        // SAFETY: `buckets` points to `count` initialised (zeroed) buckets
        // inside the live allocation, aligned to 64 (see `zeroed_buckets`).
        unsafe { std::slice::from_raw_parts(self.buckets, self.count) }
    }
}

impl Drop for BucketMemory {
    fn drop(&mut self) {
        // SAFETY: `base` was allocated by `alloc_zeroed(self.layout)`.
        unsafe { std::alloc::dealloc(self.base, self.layout) }
    }
}

impl BucketMemory {
    /// Writes a zero byte (over a zero) to every page of the allocation,
    /// the pages split among the machine's cores, so that the system backs
    /// them now. Skipped where the table is larger than the machine's
    /// memory: touching it all could only push it out again.
    pub(super) fn touch_pages(&mut self) {
        let len = self.layout.size();
        if !fits_in_memory(len) {
            return;
        }
        // An address, not a pointer, crosses to the threads.
        let base = self.base as usize;
        in_parallel(len.div_ceil(PAGE), PARALLEL_BYTES / PAGE, |first, last| {
            for page in first..last {
                // SAFETY: page * PAGE < len, inside the live allocation,
                // which `&mut self` holds alone while the threads run; the
                // byte was zero and stays zero.
                unsafe { ((base + page * PAGE) as *mut u8).write_volatile(0) };
            }
        });
    }
}

/// The least memory worth a thread of its own in `in_parallel`: below it,
/// starting the thread costs more than it saves (the generator clears a
/// 4 MB table before every game).
pub(super) const PARALLEL_BYTES: usize = 32 * MB;

/// Runs `work(first, last)` over `0..items` in up to 8 consecutive ranges
/// of at least `min_per_thread` items, each on a thread of its own while
/// there are cores for them (or on this one, where a thread cannot start).
pub(super) fn in_parallel(items: usize, min_per_thread: usize, work: impl Fn(usize, usize) + Sync) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = cores.min(8).min(items / min_per_thread.max(1)).max(1);
    if threads == 1 {
        return work(0, items);
    }
    let per_thread = items.div_ceil(threads);
    let work = &work;
    std::thread::scope(|scope| {
        for first in (0..items).step_by(per_thread) {
            let last = (first + per_thread).min(items);
            let spawned = std::thread::Builder::new()
                .name("kiraly-hash".into())
                .spawn_scoped(scope, move || work(first, last));
            if spawned.is_err() {
                work(first, last);
            }
        }
    });
}

/// Whether `len` bytes fit in the machine's physical memory.
#[cfg(target_os = "linux")]
fn fits_in_memory(len: usize) -> bool {
    // SAFETY: sysconf only reads system configuration.
    let (pages, page_size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    if pages <= 0 || page_size <= 0 {
        return false;
    }
    (pages as u128) * (page_size as u128) >= len as u128
}

/// Windows commits the whole table against memory and page file when it
/// is allocated, refusing what they cannot hold.
#[cfg(not(target_os = "linux"))]
fn fits_in_memory(_len: usize) -> bool {
    true
}

/// `count` empty buckets, or `None` when the memory cannot be had.
pub(super) fn zeroed_buckets(count: usize) -> Option<BucketMemory> {
    let size = count
        .checked_add(1)?
        .checked_mul(std::mem::size_of::<Bucket>())?;
    let layout = Layout::from_size_align(size, 8).ok()?;
    // SAFETY: `layout` has a non-zero size (at least two 64-byte buckets).
    let base = unsafe { alloc_zeroed(layout) };
    if base.is_null() {
        return None;
    }
    let offset = (base as usize).next_multiple_of(64) - base as usize;
    // SAFETY: offset < 64, and the allocation has one bucket (64 bytes) to
    // spare, so `count` buckets from `base + offset` stay inside it. Every
    // byte is zero, and all-zero bytes are a valid (empty) bucket: four
    // entries of two `AtomicU64`, which have the representation of `u64`,
    // with no padding in the 64 bytes.
    let buckets = unsafe { base.add(offset) } as *const Bucket;
    advise_huge_pages(base, size);
    Some(BucketMemory {
        base,
        layout,
        buckets,
        count,
    })
}

#[cfg(target_os = "linux")]
fn advise_huge_pages(ptr: *mut u8, len: usize) {
    let start = (ptr as usize).next_multiple_of(PAGE);
    let end = (ptr as usize + len) / PAGE * PAGE;
    if end > start {
        // SAFETY: [start, end) lies inside the live allocation just made and
        // is page-aligned; MADV_HUGEPAGE only changes how the kernel backs
        // those pages, never their contents, and a failure is harmless.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_ptr: *mut u8, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn in_parallel_covers_every_item_once() {
        for (items, min) in [(0, 1), (1, 1), (7, 1), (1000, 3), (1000, 600), (4096, 0)] {
            let seen: Vec<AtomicUsize> = (0..items).map(|_| AtomicUsize::new(0)).collect();
            in_parallel(items, min, |first, last| {
                for s in &seen[first..last] {
                    s.fetch_add(1, Ordering::Relaxed);
                }
            });
            assert!(
                seen.iter().all(|s| s.load(Ordering::Relaxed) == 1),
                "{items} {min}"
            );
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn tables_beyond_the_machines_memory_are_left_untouched() {
        assert!(fits_in_memory(MB));
        assert!(!fits_in_memory(usize::MAX));
    }
}
