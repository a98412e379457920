//! Transposition table shared by every search thread without locks.
//!
//! Entries come in buckets of four, one 64-byte cache line: a probe reads a
//! single line, and a store picks its victim among four candidates (the same
//! position, else an empty slot, else the shallowest and oldest entry), so a
//! deep result is not lost to the next shallow one that hashes to its index.
//!
//! Each entry is two 64-bit atomics: the data word and the key XOR the data
//! word. A reader recomputes `stored ^ data` and accepts the entry only when
//! it equals the probed key, so an entry torn by a concurrent writer (half old,
//! half new) is rejected instead of being trusted. Moves read from the table
//! are only ever used once `PackedMove::legal_move` finds them legal.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use shakmaty::{Chess, Move, Position, Role, Square};

use crate::huge_pages::{HugePageSlice, ZeroIsValid};
use crate::movegen::is_legal;
use crate::parameters as params;
use crate::score::{from_tt, to_tt};

mod memory;

use memory::{in_parallel, touch_pages, PARALLEL_BYTES};

pub const MB: usize = 1024 * 1024;

/// A move packed into 16 bits: from (6), to (6), promotion role (3).
/// Castling is stored king-square to rook-square, as shakmaty represents it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PackedMove(pub u16);

impl PackedMove {
    pub const NONE: PackedMove = PackedMove(0);

    pub fn new(m: Move) -> PackedMove {
        let from = m.from().map_or(0, |sq| sq as u16);
        let to = m.to() as u16;
        let promo = m.promotion().map_or(0, |r| r as u16);
        PackedMove(from | (to << 6) | (promo << 12))
    }

    #[inline]
    pub fn matches(self, m: Move) -> bool {
        self != PackedMove::NONE && PackedMove::new(m) == self
    }

    /// The move packed here, if it is legal in `pos`: the one decoder of
    /// table moves. A table entry may belong to another position with the
    /// same index (or, rarely, the same key), so its move is never trusted
    /// unchecked.
    pub fn legal_move(self, pos: &Chess) -> Option<Move> {
        if self == PackedMove::NONE {
            return None;
        }
        let from = Square::new(u32::from(self.0 & 63));
        let to = Square::new(u32::from((self.0 >> 6) & 63));
        let promotion = match self.0 >> 12 {
            0 => None,
            r => Some(Role::try_from(r).ok()?),
        };
        let board = pos.board();
        let us = pos.turn();
        let piece = board.piece_at(from).filter(|p| p.color == us)?;
        let target = board.piece_at(to);
        let m = match (piece.role, target) {
            // shakmaty's castling: the king takes its own rook.
            (Role::King, Some(t))
                if t.color == us && t.role == Role::Rook && promotion.is_none() =>
            {
                Move::Castle {
                    king: from,
                    rook: to,
                }
            }
            (_, Some(t)) if t.color == us => return None,
            // A pawn moving diagonally to an empty square takes en passant.
            (Role::Pawn, None) if from.file() != to.file() && promotion.is_none() => {
                Move::EnPassant { from, to }
            }
            (role, target) => Move::Normal {
                role,
                from,
                capture: target.map(|t| t.role),
                to,
                promotion,
            },
        };
        is_legal(pos, m).then_some(m)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact = 1,
    Lower = 2,
    Upper = 3,
}

impl Bound {
    /// The bound of a search's result: `best` at or above `beta` is a
    /// lower bound (a cutoff), a score that raised alpha is exact, and
    /// one that did not is an upper bound.
    #[inline]
    pub fn of_result(best: i32, raised_alpha: bool, beta: i32) -> Bound {
        if best >= beta {
            Bound::Lower
        } else if raised_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }

    /// Whether a score with this bound settles the window `alpha..beta`.
    #[inline]
    pub fn settles(self, score: i32, alpha: i32, beta: i32) -> bool {
        match self {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
        }
    }
}

/// What the table keeps of a position: what a probe returns and a store
/// writes.
#[derive(Clone, Copy, Debug)]
pub struct TtData {
    pub mv: PackedMove,
    /// The score as seen from the node that probes or stores it: the table
    /// keeps mate and tablebase scores relative to the position and adjusts
    /// them for the ply of the node (`score::to_tt`, `score::from_tt`).
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
    /// The position's static evaluation, when the writer had computed one.
    pub eval: Option<i32>,
    /// The position has been searched as a PV node: the node that stores
    /// it was one, or found the flag set in the entry it probed. Late-move
    /// reductions treat the moves of a line once thought best with care.
    pub pv: bool,
}

#[derive(Default)]
struct Entry {
    key_xor_data: AtomicU64,
    data: AtomicU64,
}

impl Entry {
    #[inline]
    fn write(&self, key: u64, data: u64) {
        self.data.store(data, Ordering::Relaxed);
        self.key_xor_data.store(key ^ data, Ordering::Relaxed);
    }
}

const BUCKET_SIZE: usize = 4;

/// Four entries on one cache line.
#[repr(align(64))]
struct Bucket([Entry; BUCKET_SIZE]);

// SAFETY: all-zero bytes are an empty bucket: four entries of two
// `AtomicU64`, which have the representation of `u64`, with no padding in
// the 64 bytes.
unsafe impl ZeroIsValid for Bucket {}

/// The 16-bit evaluation field's value for "no evaluation".
const NO_EVAL: i16 = i16::MIN;

/// The bit of the PV flag, the top of the depth byte: depths stay below
/// `MAX_PLY` (128), so seven bits hold them.
const PV_BIT: u64 = 1 << 55;

/// Move in bits 0..16, score 16..32, static evaluation 32..48, depth
/// 48..55, the PV flag 55, bound 56..58, age 58..64.
fn pack(data: TtData, age: u8) -> u64 {
    let TtData {
        mv,
        score,
        depth,
        bound,
        eval,
        pv,
    } = data;
    // An evaluation outside the field is dropped, never distorted.
    let eval = eval
        .and_then(|e| i16::try_from(e).ok())
        .filter(|&e| e != NO_EVAL)
        .unwrap_or(NO_EVAL);
    (mv.0 as u64)
        | ((score as i16 as u16 as u64) << 16)
        | ((eval as u16 as u64) << 32)
        | ((depth.clamp(0, 127) as u64) << 48)
        | if pv { PV_BIT } else { 0 }
        | ((bound as u64) << 56)
        | (((age & 0x3f) as u64) << 58)
}

fn unpack(data: u64) -> Option<TtData> {
    let bound = match (data >> 56) & 3 {
        1 => Bound::Exact,
        2 => Bound::Lower,
        3 => Bound::Upper,
        _ => return None, // empty slot
    };
    Some(TtData {
        mv: PackedMove(data as u16),
        score: (data >> 16) as u16 as i16 as i32,
        depth: ((data >> 48) & 0x7f) as i32,
        bound,
        eval: Some((data >> 32) as u16 as i16)
            .filter(|&e| e != NO_EVAL)
            .map(i32::from),
        pv: data & PV_BIT != 0,
    })
}

fn age_of(data: u64) -> u8 {
    ((data >> 58) & 0x3f) as u8
}

pub struct TranspositionTable {
    buckets: HugePageSlice<Bucket>,
    age: AtomicU8,
}

impl TranspositionTable {
    /// Allocates a table of `megabytes` MiB. Fails, rather than aborting the
    /// process, when the memory cannot be had.
    pub fn new(megabytes: usize) -> Result<TranspositionTable, String> {
        let count = (megabytes.max(1) * MB / std::mem::size_of::<Bucket>()).max(1);
        Ok(TranspositionTable {
            buckets: HugePageSlice::try_zeroed(count)
                .ok_or_else(|| format!("cannot allocate {megabytes} MB for the hash table"))?,
            age: AtomicU8::new(0),
        })
    }

    /// Makes the whole table resident now. Its pages come from the system
    /// untouched, and each is zeroed (on Linux, a 2 MB page backed) at its
    /// first touch; a search probes and stores all over the table at once,
    /// so left to it, those touches would all fall on its clock (seconds for
    /// gigabytes on some virtual machines; docs/uci.md). The engine calls
    /// this after `Hash` changes, before `readyok`. `&mut self`: the table
    /// is not shared yet.
    pub fn make_resident(&mut self) {
        touch_pages(&mut self.buckets);
    }

    /// Empties the table, a share of it on each of a few threads: a
    /// gigabyte takes a fraction of a second, and a GUI clears before
    /// every game (`ucinewgame`).
    pub fn clear(&self) {
        let buckets: &[Bucket] = &self.buckets;
        in_parallel(
            buckets.len(),
            PARALLEL_BYTES / std::mem::size_of::<Bucket>(),
            |first, last| {
                for e in buckets[first..last].iter().flat_map(|b| &b.0) {
                    e.key_xor_data.store(0, Ordering::Relaxed);
                    e.data.store(0, Ordering::Relaxed);
                }
            },
        );
        self.age.store(0, Ordering::Relaxed);
    }

    /// Marks the start of a new search, so older entries are replaced first.
    pub fn new_search(&self) {
        self.age.fetch_add(1, Ordering::Relaxed);
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        &self.buckets[((key as u128 * self.buckets.len() as u128) >> 64) as usize]
    }

    /// Asks the CPU to start loading `key`'s bucket, so that the probe a
    /// little later (after the pruning decisions, the move's making and its
    /// accumulator work) finds it in cache rather than waiting on memory;
    /// on x86-64 `bench` runs 9 % slower without it (docs/speed.md).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        let bucket: *const Bucket = self.bucket(key);
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            // SAFETY: a prefetch is only a hint; it never faults and the
            // pointer is to a live bucket anyway.
            #[allow(unused_unsafe)]
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(bucket.cast::<i8>())
            };
        }
        #[cfg(target_arch = "aarch64")]
        // SAFETY: `prfm` is a hint that never faults and writes nothing;
        // the pointer is to a live bucket. (The prefetch intrinsic of
        // `std::arch::aarch64` is not stable yet.)
        unsafe {
            std::arch::asm!(
                "prfm pldl1keep, [{bucket}]",
                bucket = in(reg) bucket,
                options(nostack, readonly, preserves_flags)
            );
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        let _ = bucket;
    }

    #[inline]
    pub fn probe(&self, key: u64, ply: usize) -> Option<TtData> {
        for e in &self.bucket(key).0 {
            let data = e.data.load(Ordering::Relaxed);
            let check = e.key_xor_data.load(Ordering::Relaxed);
            if check ^ data == key {
                return unpack(data).map(|d| TtData {
                    score: from_tt(d.score, ply),
                    ..d
                });
            }
        }
        None
    }

    /// Stores a search result of a node `ply` plies from the root; `eval`
    /// is the position's static evaluation if the search computed one (kept
    /// so later visits need not recompute it).
    #[inline]
    pub fn store(&self, key: u64, ply: usize, data: TtData) {
        let stored = TtData {
            score: to_tt(data.score, ply),
            ..data
        };
        let TtData {
            mv, depth, bound, ..
        } = stored;
        let bucket = &self.bucket(key).0;
        let age = self.age.load(Ordering::Relaxed) & 0x3f;
        // The victim: this position's own entry, else the entry worth least,
        // an empty one or the shallowest, with entries of earlier searches
        // counted 8 plies shallower per search since they were written.
        let mut victim = &bucket[0];
        let mut victim_worth = i32::MAX;
        for e in bucket {
            let data = e.data.load(Ordering::Relaxed);
            if e.key_xor_data.load(Ordering::Relaxed) ^ data == key {
                if let Some(prev) = unpack(data) {
                    // A shallower bound must not wipe out a deeper one of the
                    // same position, unless it is exact or the old one stale.
                    let stale = age_of(data) != age;
                    if !stale
                        && bound != Bound::Exact
                        && prev.depth > depth + params::tt_replace_depth_margin()
                    {
                        return;
                    }
                    // Keep the known best move and evaluation when
                    // re-storing without them.
                    let mv = if mv == PackedMove::NONE { prev.mv } else { mv };
                    let eval = stored.eval.or(prev.eval);
                    e.write(key, pack(TtData { mv, eval, ..stored }, age));
                    return;
                }
            }
            let worth = match unpack(data) {
                None => i32::MIN,
                Some(prev) => {
                    let searches_ago = (age.wrapping_sub(age_of(data)) & 0x3f) as i32;
                    prev.depth - params::tt_age_penalty() * searches_ago
                }
            };
            if worth < victim_worth {
                victim = e;
                victim_worth = worth;
            }
        }
        victim.write(key, pack(stored, age));
    }

    /// Permille of sampled entries written by the current search (UCI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let age = self.age.load(Ordering::Relaxed) & 0x3f;
        let sample = self.buckets.len().min(250);
        let used = self.buckets[..sample]
            .iter()
            .flat_map(|b| &b.0)
            .filter(|e| {
                let d = e.data.load(Ordering::Relaxed);
                unpack(d).is_some() && age_of(d) == age
            })
            .count();
        (used * 1000 / (sample * BUCKET_SIZE).max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_entry_is_zero(tt: &TranspositionTable) -> bool {
        tt.buckets.iter().flat_map(|b| &b.0).all(|e| {
            e.key_xor_data.load(Ordering::Relaxed) == 0 && e.data.load(Ordering::Relaxed) == 0
        })
    }

    #[test]
    fn a_cleared_table_split_among_threads_is_empty() {
        // Large enough for more than one thread where there are cores.
        let tt = TranspositionTable::new(80).unwrap();
        let keys: Vec<u64> = (1..=20_000u64)
            .map(|k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        let data = TtData {
            mv: PackedMove(1),
            score: 5,
            depth: 3,
            bound: Bound::Exact,
            eval: None,
            pv: false,
        };
        for &k in &keys {
            tt.store(k, 0, data);
        }
        assert!(keys.iter().filter(|&&k| tt.probe(k, 0).is_some()).count() > 15_000);
        tt.clear();
        assert!(keys.iter().all(|&k| tt.probe(k, 0).is_none()));
        assert!(every_entry_is_zero(&tt));
    }

    #[test]
    fn a_resident_table_is_still_empty() {
        let mut tt = TranspositionTable::new(4).unwrap();
        tt.make_resident();
        assert!(every_entry_is_zero(&tt));
        assert!(tt.probe(0x1234_5678_9abc_def0, 0).is_none());
    }

    #[test]
    fn store_and_probe_round_trip() {
        let tt = TranspositionTable::new(1).unwrap();
        let key = 0x1234_5678_9abc_def0;
        tt.store(
            key,
            0,
            TtData {
                mv: PackedMove(777),
                score: -31_000,
                depth: 12,
                bound: Bound::Lower,
                eval: Some(-1234),
                pv: true,
            },
        );
        let hit = tt.probe(key, 0).unwrap();
        assert_eq!(hit.mv, PackedMove(777));
        assert_eq!(hit.score, -31_000);
        assert_eq!(hit.depth, 12);
        assert_eq!(hit.bound, Bound::Lower);
        assert_eq!(hit.eval, Some(-1234));
        assert!(hit.pv);
        assert!(tt.probe(key ^ 1, 0).is_none());
    }

    #[test]
    fn mate_scores_are_kept_relative_to_the_position() {
        let tt = TranspositionTable::new(1).unwrap();
        let key = 0x7777_0000_1234_0001;
        let data = |score| TtData {
            mv: PackedMove(5),
            score,
            depth: 9,
            bound: Bound::Exact,
            eval: None,
            pv: false,
        };
        // A mate 10 plies from the root, found at ply 4, is a mate 8 plies
        // from the root when the position comes up at ply 2.
        tt.store(key, 4, data(crate::score::mate_in(10)));
        assert_eq!(tt.probe(key, 2).unwrap().score, crate::score::mate_in(8));
        tt.store(key, 4, data(crate::score::mated_in(10)));
        assert_eq!(tt.probe(key, 6).unwrap().score, crate::score::mated_in(12));
        tt.store(key, 4, data(-250));
        assert_eq!(tt.probe(key, 9).unwrap().score, -250);
    }

    #[test]
    fn evaluation_survives_a_store_without_one_and_never_wraps() {
        let tt = TranspositionTable::new(1).unwrap();
        let key = 0x0fed_cba9_8765_4321;
        tt.store(
            key,
            0,
            TtData {
                mv: PackedMove(3),
                score: 10,
                depth: 4,
                bound: Bound::Upper,
                eval: Some(87),
                pv: false,
            },
        );
        tt.store(
            key,
            0,
            TtData {
                mv: PackedMove(3),
                score: 20,
                depth: 6,
                bound: Bound::Lower,
                eval: None,
                pv: false,
            },
        );
        let hit = tt.probe(key, 0).unwrap();
        assert_eq!((hit.score, hit.eval), (20, Some(87)));
        tt.store(
            key,
            0,
            TtData {
                mv: PackedMove(3),
                score: 20,
                depth: 7,
                bound: Bound::Lower,
                eval: Some(-87),
                pv: false,
            },
        );
        assert_eq!(tt.probe(key, 0).unwrap().eval, Some(-87));
        // Values the 16-bit field cannot hold are not stored at all.
        for out_of_range in [40_000, -40_000, i16::MIN as i32] {
            let other = key ^ 0xff00;
            tt.store(
                other,
                0,
                TtData {
                    mv: PackedMove(1),
                    score: 0,
                    depth: 1,
                    bound: Bound::Exact,
                    eval: Some(out_of_range),
                    pv: false,
                },
            );
            assert_eq!(tt.probe(other, 0).unwrap().eval, None);
        }
        tt.store(
            key ^ 0xff,
            0,
            TtData {
                mv: PackedMove(1),
                score: 0,
                depth: 1,
                bound: Bound::Exact,
                eval: Some(32_767),
                pv: false,
            },
        );
        assert_eq!(tt.probe(key ^ 0xff, 0).unwrap().eval, Some(32_767));
    }

    /// Threads hammer a small table with stores and probes of keys whose
    /// data is a function of the key: a probe that hits must return exactly
    /// that data, never a mix of two writers' entries.
    #[test]
    fn concurrent_writers_never_yield_a_corrupted_entry() {
        fn data_for(key: u64) -> (PackedMove, i32, i32, Bound) {
            let mv = PackedMove((key >> 7) as u16 | 1);
            let score = ((key >> 23) % 20_000) as i32 - 10_000;
            let depth = ((key >> 41) % 60) as i32;
            let bound = [Bound::Exact, Bound::Lower, Bound::Upper][(key % 3) as usize];
            (mv, score, depth, bound)
        }
        let tt = TranspositionTable::new(1).unwrap();
        let hits = std::sync::atomic::AtomicU64::new(0);
        std::thread::scope(|scope| {
            for thread in 0..4u64 {
                let (tt, hits) = (&tt, &hits);
                scope.spawn(move || {
                    let mut rng = crate::rng::Rng::new(thread + 1);
                    for _ in 0..400_000 {
                        // Keys from a pool far larger than the table.
                        let x = rng.next_u64();
                        let key = (x % 200_000).wrapping_mul(0xD6E8_FEB8_6659_FD93);
                        if (x >> 40) & 1 == 0 {
                            let (mv, score, depth, bound) = data_for(key);
                            tt.store(
                                key,
                                0,
                                TtData {
                                    mv,
                                    score,
                                    depth,
                                    bound,
                                    eval: None,
                                    pv: false,
                                },
                            );
                        } else if let Some(hit) = tt.probe(key, 0) {
                            let (mv, score, depth, bound) = data_for(key);
                            assert_eq!(hit.mv, mv);
                            assert_eq!(hit.score, score);
                            assert_eq!(hit.depth, depth);
                            assert_eq!(hit.bound, bound);
                            hits.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        let hits = hits.load(Ordering::Relaxed);
        assert!(hits > 10_000, "the probes must hit, got {hits}");
    }

    /// Keys sharing their high bits share a bucket: a deep entry outlives
    /// a stream of shallow ones from other positions.
    #[test]
    fn bucket_keeps_the_deep_entry() {
        let tt = TranspositionTable::new(1).unwrap();
        let base = 0xABCD_0000_0000_0000u64;
        tt.store(
            base | 1,
            0,
            TtData {
                mv: PackedMove(11),
                score: 50,
                depth: 20,
                bound: Bound::Exact,
                eval: None,
                pv: false,
            },
        );
        // A shallow entry of another position in the same bucket.
        let store_shallow = |k: u64| {
            tt.store(
                base | k,
                0,
                TtData {
                    mv: PackedMove(k as u16),
                    score: 0,
                    depth: 1,
                    bound: Bound::Upper,
                    eval: None,
                    pv: false,
                },
            )
        };
        (2..40u64).for_each(store_shallow);
        assert_eq!(tt.probe(base | 1, 0).unwrap().depth, 20);
        assert_eq!(tt.probe(base | 39, 0).unwrap().mv, PackedMove(39));
        // After new searches the old deep entry becomes the victim.
        for _ in 0..3 {
            tt.new_search();
        }
        (40..44u64).for_each(store_shallow);
        assert!(tt.probe(base | 1, 0).is_none());
    }

    #[test]
    fn torn_entry_is_rejected() {
        let tt = TranspositionTable::new(1).unwrap();
        let key = 42u64 << 40;
        tt.store(
            key,
            0,
            TtData {
                mv: PackedMove(5),
                score: 10,
                depth: 3,
                bound: Bound::Exact,
                eval: None,
                pv: false,
            },
        );
        // Simulate a concurrent writer having replaced only the data word.
        let e = tt
            .bucket(key)
            .0
            .iter()
            .find(|e| e.data.load(Ordering::Relaxed) != 0)
            .unwrap();
        e.data.store(
            pack(
                TtData {
                    mv: PackedMove(9),
                    score: 99,
                    depth: 9,
                    bound: Bound::Exact,
                    eval: None,
                    pv: false,
                },
                0,
            ),
            Ordering::Relaxed,
        );
        assert!(tt.probe(key, 0).is_none());
    }
}
