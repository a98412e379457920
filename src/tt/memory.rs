//! The table's memory: taken on huge pages (`huge_pages`), made resident
//! and split among threads for the table's bulk work.

use super::{Bucket, MB};
use crate::huge_pages::{HugePageSlice, PAGE};

/// Writes a zero byte (over a zero) to every page of the table's memory,
/// the pages split among the machine's cores, so that the system backs
/// them now. Skipped where the table is larger than the machine's memory:
/// touching it all could only push it out again.
pub(super) fn touch_pages(memory: &mut HugePageSlice<Bucket>) {
    let len = memory.span_bytes();
    if !fits_in_memory(len) {
        return;
    }
    // An address, not a pointer, crosses to the threads.
    let base = memory.start() as usize;
    in_parallel(len.div_ceil(PAGE), PARALLEL_BYTES / PAGE, |first, last| {
        for page in first..last {
            // SAFETY: page * PAGE < len, inside the live allocation,
            // which `&mut memory` holds alone while the threads run; the
            // byte was zero and stays zero.
            unsafe { ((base + page * PAGE) as *mut u8).write_volatile(0) };
        }
    });
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
