//! Transposition table: buckets of four 16-byte entries, each bucket one 64-byte-aligned
//! cache line (a probe touches one line), indexed by the Zobrist key, sized in MiB.
//!
//! Replacement: an entry with the same key is overwritten (keeping its move if the new
//! result has none); otherwise the first empty slot; otherwise the slot with the lowest
//! `depth − 8 · age`, where age counts searches since the entry was written. So entries of
//! old searches go first, then shallow ones.
//!
//! The threads of a Lazy SMP search share one table without locks: each slot keeps its
//! key XOR its data, so a slot half-written by one thread while another writes it fails
//! the key check (see [`TranspositionTable`]).

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use super::{MATE_BOUND, MAX_PLY};

/// What a stored score means relative to the search window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// Exact score (PV node).
    Exact,
    /// Score is a lower bound (fail high).
    Lower,
    /// Score is an upper bound (fail low).
    Upper,
}

/// A probed entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    /// Best or refutation move (compact encoding, 0 = none).
    pub mv: u16,
    /// Score, mate scores relative to the stored node (see `score_to_tt`).
    pub score: i32,
    /// Static evaluation of the side to move (i16::MIN = none).
    pub eval: i32,
    /// Remaining depth of the search that stored it.
    pub depth: i32,
    /// Bound type.
    pub bound: Bound,
}

/// One slot: the packed data and the key XOR the data (lockless hashing, Hyatt and
/// Mann 2002). Threads read and write slots without locks; a slot torn by two writers
/// fails the key check and reads as a miss instead of handing out a wrong move or score.
#[derive(Debug, Default)]
#[repr(C)]
struct Entry {
    key_xor: AtomicU64,
    data: AtomicU64,
}

/// The fields of a slot, unpacked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Data {
    mv: u16,
    score: i16,
    eval: i16,
    depth: u8,
    /// Bits 0-1: bound (0 = empty), bits 2-7: generation.
    flags: u8,
}

impl Data {
    fn pack(self) -> u64 {
        u64::from(self.mv)
            | u64::from(self.score as u16) << 16
            | u64::from(self.eval as u16) << 32
            | u64::from(self.depth) << 48
            | u64::from(self.flags) << 56
    }

    fn unpack(v: u64) -> Data {
        Data {
            mv: v as u16,
            score: (v >> 16) as u16 as i16,
            eval: (v >> 32) as u16 as i16,
            depth: (v >> 48) as u8,
            flags: (v >> 56) as u8,
        }
    }
}

impl Entry {
    /// The slot's key and data (a torn slot shows a key nobody stored).
    #[inline]
    fn load(&self) -> (u64, Data) {
        let data = self.data.load(Ordering::Relaxed);
        (
            self.key_xor.load(Ordering::Relaxed) ^ data,
            Data::unpack(data),
        )
    }

    #[inline]
    fn save(&self, key: u64, d: Data) {
        let data = d.pack();
        self.data.store(data, Ordering::Relaxed);
        self.key_xor.store(key ^ data, Ordering::Relaxed);
    }
}

const BUCKET: usize = 4;

/// Four entries on one cache line.
#[derive(Debug, Default)]
#[repr(C, align(64))]
struct Bucket([Entry; BUCKET]);

/// The transposition table, shared by the threads of a search (every method takes
/// `&self`).
pub struct TranspositionTable {
    buckets: Vec<Bucket>,
    generation: AtomicU8,
}

/// A hash table the machine cannot give the memory for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot allocate a {mib} MiB hash table")]
pub struct HashTooLarge {
    /// The size asked for.
    pub mib: usize,
}

/// Sentinel for "no static evaluation stored".
pub const NO_EVAL: i32 = i16::MIN as i32;

impl TranspositionTable {
    /// A table of about `mib` MiB (at least one bucket).
    ///
    /// # Panics
    ///
    /// If the memory cannot be allocated (use [`TranspositionTable::try_new`] for sizes
    /// chosen by a user).
    pub fn new(mib: usize) -> TranspositionTable {
        TranspositionTable::try_new(mib).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A table of about `mib` MiB, or an error if the memory cannot be allocated.
    pub fn try_new(mib: usize) -> Result<TranspositionTable, HashTooLarge> {
        let bytes = mib.max(1).saturating_mul(1024 * 1024);
        let n = (bytes / std::mem::size_of::<Bucket>()).max(1);
        let mut buckets = Vec::new();
        buckets
            .try_reserve_exact(n)
            .map_err(|_| HashTooLarge { mib })?;
        buckets.resize_with(n, Bucket::default);
        Ok(TranspositionTable {
            buckets,
            generation: AtomicU8::new(0),
        })
    }

    /// A one-bucket table for searches that do not use it (quiescence only).
    pub fn tiny() -> TranspositionTable {
        TranspositionTable {
            buckets: vec![Bucket::default()],
            generation: AtomicU8::new(0),
        }
    }

    /// Number of entries.
    pub fn capacity(&self) -> usize {
        self.buckets.len() * BUCKET
    }

    /// Empties the table (call while no search uses it).
    pub fn clear(&self) {
        for e in self.buckets.iter().flat_map(|b| b.0.iter()) {
            e.data.store(0, Ordering::Relaxed);
            e.key_xor.store(0, Ordering::Relaxed);
        }
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Starts a new search (ages existing entries).
    pub fn new_search(&self) {
        let g = self.generation.load(Ordering::Relaxed);
        self.generation.store((g + 1) & 63, Ordering::Relaxed);
    }

    #[inline]
    fn bucket(&self, key: u64) -> &[Entry; BUCKET] {
        // Multiply-shift maps the key uniformly onto the bucket range.
        &self.buckets[((u128::from(key) * self.buckets.len() as u128) >> 64) as usize].0
    }

    /// Looks `key` up.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Hit> {
        self.bucket(key).iter().find_map(|e| {
            let (k, d) = e.load();
            (k == key && d.flags & 3 != 0).then(|| Hit {
                mv: d.mv,
                score: i32::from(d.score),
                eval: i32::from(d.eval),
                depth: i32::from(d.depth),
                bound: match d.flags & 3 {
                    1 => Bound::Exact,
                    2 => Bound::Lower,
                    _ => Bound::Upper,
                },
            })
        })
    }

    /// Stores a search result. `score` and `eval` must fit in an i16.
    #[inline]
    pub fn store(&self, key: u64, mv: u16, score: i32, eval: i32, depth: i32, bound: Bound) {
        let bucket = self.bucket(key);
        let generation = self.generation.load(Ordering::Relaxed);
        let slots: [(u64, Data); BUCKET] = std::array::from_fn(|i| bucket[i].load());
        let age = |d: &Data| i32::from((generation.wrapping_sub(d.flags >> 2)) & 63);
        let slot = slots
            .iter()
            .position(|(k, d)| *k == key && d.flags & 3 != 0)
            .or_else(|| slots.iter().position(|(_, d)| d.flags & 3 == 0))
            .unwrap_or_else(|| {
                (0..BUCKET)
                    .min_by_key(|&i| i32::from(slots[i].1.depth) - 8 * age(&slots[i].1))
                    .unwrap_or(0)
            });
        let (old_key, old) = slots[slot];
        let keep_move = old_key == key && mv == 0;
        let bound_bits = match bound {
            Bound::Exact => 1,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        bucket[slot].save(
            key,
            Data {
                mv: if keep_move { old.mv } else { mv },
                score: score.clamp(i16::MIN as i32 + 1, i16::MAX as i32) as i16,
                eval: eval.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
                depth: depth.clamp(0, 255) as u8,
                flags: bound_bits | (generation << 2),
            },
        );
    }

    /// Permille of the first 1000 entries written in the current search (UCI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let n = self.capacity().min(1000);
        let generation = self.generation.load(Ordering::Relaxed);
        let used = self
            .buckets
            .iter()
            .flat_map(|b| b.0.iter())
            .take(n)
            .filter(|e| {
                let flags = e.load().1.flags;
                flags & 3 != 0 && flags >> 2 == generation
            })
            .count();
        (used * 1000 / n) as u32
    }
}

/// A score as the table stores it: mate scores relative to the node, not the root.
#[inline]
pub(super) fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND - MAX_PLY as i32 {
        score + ply as i32
    } else if score <= -(MATE_BOUND - MAX_PLY as i32) {
        score - ply as i32
    } else {
        score
    }
}

/// A score read from the table, made relative to the root again.
#[inline]
pub(super) fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND - MAX_PLY as i32 {
        score - ply as i32
    } else if score <= -(MATE_BOUND - MAX_PLY as i32) {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_is_16_bytes_and_size_follows_mib() {
        assert_eq!(std::mem::size_of::<Entry>(), 16);
        assert_eq!(std::mem::size_of::<Bucket>(), 64);
        assert_eq!(std::mem::align_of::<Bucket>(), 64);
        assert_eq!(TranspositionTable::new(1).capacity(), 65536);
        assert_eq!(TranspositionTable::new(16).capacity(), 16 * 65536);
    }

    #[test]
    fn store_probe_and_keep_move() {
        let tt = TranspositionTable::new(1);
        assert_eq!(tt.probe(42), None);
        tt.store(42, 777, -35, 12, 7, Bound::Lower);
        let hit = tt.probe(42).unwrap();
        assert_eq!(
            (hit.mv, hit.score, hit.eval, hit.depth, hit.bound),
            (777, -35, 12, 7, Bound::Lower)
        );
        // A result without a move keeps the old move.
        tt.store(42, 0, 10, 12, 8, Bound::Upper);
        assert_eq!(tt.probe(42).unwrap().mv, 777);
        assert_eq!(tt.probe(42).unwrap().bound, Bound::Upper);
        assert_eq!(tt.probe(43), None);
    }

    #[test]
    fn replacement_prefers_old_and_shallow() {
        let tt = TranspositionTable::new(1);
        // Keys that land in bucket 0: the top bits are zero.
        let keys: Vec<u64> = (1..=6).collect();
        for (i, &k) in keys[..4].iter().enumerate() {
            tt.store(k, 1, 0, 0, 10 + i as i32, Bound::Exact);
        }
        // Bucket full: the shallowest (key 1, depth 10) is replaced.
        tt.store(keys[4], 1, 0, 0, 1, Bound::Exact);
        assert!(tt.probe(1).is_none());
        assert!(tt.probe(keys[4]).is_some());
        // After many searches, old deep entries lose against a fresh shallow one.
        for _ in 0..3 {
            tt.new_search();
        }
        tt.store(keys[5], 1, 0, 0, 0, Bound::Exact);
        assert!(tt.probe(keys[5]).is_some());
        assert_eq!(
            keys[1..5]
                .iter()
                .filter(|&&k| tt.probe(k).is_some())
                .count(),
            3
        );
        assert_eq!(tt.hashfull(), 1); // 1 fresh entry among the first 1000 slots
        tt.clear();
        assert!(tt.probe(keys[5]).is_none());
    }

    #[test]
    fn torn_slots_read_as_misses() {
        // Two writers fill one bucket with keys whose move is a function of the key; a
        // reader must never see a key with another key's move (a plain key field would
        // pair the key of one write with the data of another).
        let tt = std::sync::Arc::new(TranspositionTable::tiny());
        let mv_of = |k: u64| (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 48) as u16 | 1;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        // Stores so far, so that the reader starts only once both writers run (it could
        // otherwise finish its probes before a thread has started, with no hit to check).
        let stores = std::sync::Arc::new(AtomicU64::new(0));
        let writers: Vec<_> = (0..2u64)
            .map(|w| {
                let (tt, stop, stores) = (tt.clone(), stop.clone(), stores.clone());
                std::thread::spawn(move || {
                    let mut i = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        if i < 1000 {
                            stores.fetch_add(1, Ordering::Relaxed);
                        }
                        let k = 1 + (i * 2 + w) % 16;
                        tt.store(
                            k,
                            mv_of(k),
                            (i % 1000) as i32,
                            0,
                            (i % 50) as i32,
                            Bound::Exact,
                        );
                        i += 1;
                    }
                })
            })
            .collect();
        while stores.load(Ordering::Relaxed) < 2000 {
            std::thread::yield_now();
        }
        let mut hits = 0;
        for i in 0..2_000_000u64 {
            let k = 1 + i % 16;
            if let Some(h) = tt.probe(k) {
                assert_eq!(h.mv, mv_of(k), "key {k}");
                hits += 1;
            }
        }
        stop.store(true, Ordering::Relaxed);
        writers.into_iter().for_each(|w| w.join().unwrap());
        assert!(hits > 0);
    }
}
