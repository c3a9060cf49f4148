//! Where keys fall in a sorted array of keys: numpy.searchsorted's answer
//! (side "left"), found through an index of the keys' leading bits.
//!
//! Token keys are BLAKE2b digests, spread evenly over u64, so with about one
//! bucket of leading bits per key, a key's bucket holds one or two keys: a
//! lookup is a read of the index and one of the keys, where a binary search
//! over a million keys takes twenty cache misses (calibration looks up
//! millions: over a second for 2 million by numpy.searchsorted).  Keys
//! bunched in one bucket still cost O(log n) each.

/// Leading bits indexed at most: 2^22 buckets (16 MiB of index) serve four
/// million keys at one a bucket.
const MAX_BITS: u32 = 22;

/// A sorted array of keys with an index of where each bucket of leading bits starts.
pub struct Positions<'a> {
    sorted: &'a [u64],
    shift: u32,
    /// starts[b]: the first index whose key's leading bits are b or more (buckets + 1 entries).
    starts: Vec<u32>,
}

impl<'a> Positions<'a> {
    pub fn new(sorted: &'a [u64]) -> Self {
        if sorted.len() >= u32::MAX as usize {
            return Positions { sorted, shift: 64, starts: Vec::new() }; // no index: binary search
        }
        let bits = (usize::BITS - sorted.len().leading_zeros()).clamp(1, MAX_BITS);
        let shift = 64 - bits;
        let buckets = 1usize << bits;
        let mut starts = vec![0u32; buckets + 1];
        let mut at = 0usize;
        for (bucket, start) in starts.iter_mut().enumerate() {
            while at < sorted.len() && ((sorted[at] >> shift) as usize) < bucket {
                at += 1;
            }
            *start = at as u32;
        }
        Positions { sorted, shift, starts }
    }

    /// The first index whose key is not less than `key` (sorted.len() if none).
    pub fn position(&self, key: u64) -> usize {
        if self.starts.is_empty() {
            return self.sorted.partition_point(|&x| x < key);
        }
        let bucket = (key >> self.shift) as usize;
        let (lo, hi) = (self.starts[bucket] as usize, self.starts[bucket + 1] as usize);
        // Keys of earlier buckets are below lo, of later ones at hi or past it.
        lo + self.sorted[lo..hi].partition_point(|&x| x < key)
    }
}

/// The position of each needle in `sorted`, written to `out` (as many as both hold).
pub fn positions(sorted: &[u64], needles: &[u64], out: &mut [u64]) {
    let index = Positions::new(sorted);
    for (slot, &key) in out.iter_mut().zip(needles) {
        *slot = index.position(key) as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_a_binary_search_everywhere() {
        let spread: Vec<u64> = (0..1000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
        let mut even = spread.clone();
        even.sort_unstable();
        let bunched: Vec<u64> = (0..1000u64).map(|i| i / 3).collect(); // repeats, all near 0
        let high: Vec<u64> = (0..50u64).map(|i| u64::MAX - 100 + i * 2).collect();
        for sorted in [even, bunched, high, vec![], vec![7]] {
            let mut probes: Vec<u64> = sorted.iter().flat_map(|&k| [k.wrapping_sub(1), k, k.wrapping_add(1)]).collect();
            probes.extend([0, 1, u64::MAX, u64::MAX / 2]);
            let index = Positions::new(&sorted);
            for key in probes {
                assert_eq!(index.position(key), sorted.partition_point(|&x| x < key), "{key} in {}", sorted.len());
            }
        }
    }
}
