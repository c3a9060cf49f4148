//! Token key → weight lookups over a model file's key-sorted sections, read
//! where they lie (the file is mapped): a binary search over the first key of
//! each block, then over the block.  A block's keys and weights are checked
//! against their CRC the first time a lookup reads them, and so is what the
//! search relies on (keys strictly increasing within the block index's
//! bounds): a file made by hand or by another tool can pass a checksum and
//! still hide a token from the search.  The file is little-endian; numbers
//! are read as such on any host.

/// Why a lookup could not be answered.
#[derive(Debug, Clone, PartialEq)]
pub enum TableError {
    /// The block's bytes are not what was written (a checksum mismatch).
    Corrupt(usize),
    /// The bytes are what was written, but not a usable model.
    Unusable(String),
}

/// The four scoring sections of a model file.
/// CRC-32 of entries start..end of a model's sections: their 8-byte keys,
/// then their 4-byte weights.  The model writer stores one per block
/// (`block_crcs`) and `Table` checks a block against it the first time a
/// message needs it, so both sides run this one function.
pub fn block_crc(keys: &[u8], weights: &[u8], start: usize, end: usize) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&keys[8 * start..8 * end]);
    hasher.update(&weights[4 * start..4 * end]);
    hasher.finalize()
}

/// `block_crc` of each block of `block` entries, for the `block_crcs` section.
pub fn block_crcs(keys: &[u8], weights: &[u8], block: usize) -> Vec<u32> {
    let count = (keys.len() / 8).min(weights.len() / 4);
    (0..count).step_by(block.max(1)).map(|start| block_crc(keys, weights, start, (start + block.max(1)).min(count))).collect()
}

/// Where a key would be in a Table (Table::spot).
#[derive(Clone, Copy)]
pub struct Spot {
    block: usize,
    guess: usize,
}

pub struct Table<'a> {
    keys: &'a [u8],
    weights: &'a [u8],
    first: &'a [u8],
    crcs: Option<&'a [u8]>,
    block: usize,
}

/// The little-endian u64 at `index` of `bytes` (the caller keeps `index` in range).
pub(crate) fn u64_at(bytes: &[u8], index: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[8 * index..8 * index + 8]);
    u64::from_le_bytes(word)
}

/// An 8-byte little-endian chunk as a u64 (chunks_exact(8) gives only such).
pub(crate) fn le_u64(chunk: &[u8]) -> u64 {
    u64::from_le_bytes(chunk.try_into().unwrap_or_default())
}

fn u32_at(bytes: &[u8], index: usize) -> u32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&bytes[4 * index..4 * index + 4]);
    u32::from_le_bytes(word)
}

impl<'a> Table<'a> {
    /// The sections as stored; their sizes must agree, and the block index
    /// (small: a key per block) must be strictly increasing when checksums
    /// are there to check the rest.
    pub fn new(keys: &'a [u8], weights: &'a [u8], first: &'a [u8], crcs: Option<&'a [u8]>, block: usize)
               -> Result<Self, String> {
        let count = keys.len() / 8;
        let blocks = if block == 0 { 0 } else { count.div_ceil(block) };
        if block == 0 || !keys.len().is_multiple_of(8) || weights.len() != 4 * count || first.len() != 8 * blocks
            || crcs.is_some_and(|crcs| crcs.len() != 4 * blocks)
        {
            return Err("the scoring sections disagree in size".to_string());
        }
        let table = Table { keys, weights, first, crcs, block };
        if crcs.is_some() && (1..blocks).any(|b| table.first(b - 1) >= table.first(b)) {
            return Err("the block index is out of order".to_string());
        }
        Ok(table)
    }

    /// Sections Table::new accepted before (a KeyTable holds them unchanged):
    /// not checked again, since the order check steps through every block,
    /// and a table is made for every lookup from Python.
    pub fn accepted(keys: &'a [u8], weights: &'a [u8], first: &'a [u8], crcs: Option<&'a [u8]>, block: usize)
                    -> Self {
        Table { keys, weights, first, crcs, block }
    }

    pub fn len(&self) -> usize {
        self.keys.len() / 8
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn blocks(&self) -> usize {
        self.first.len() / 8
    }

    fn first(&self, block: usize) -> u64 {
        u64_at(self.first, block)
    }

    pub fn key(&self, index: usize) -> u64 {
        u64_at(self.keys, index)
    }

    pub fn weight(&self, index: usize) -> f32 {
        f32::from_bits(u32_at(self.weights, index))
    }

    /// Whether lookups check blocks (the file has block checksums).
    pub fn checks(&self) -> bool {
        self.crcs.is_some()
    }

    /// The entry of `key`, or None when the model never saw it.  `checked`
    /// remembers the blocks already checked (one flag a block).
    pub fn index(&self, key: u64, checked: &mut [bool]) -> Result<Option<usize>, TableError> {
        match self.spot(key) {
            Some(spot) => self.index_at(key, spot, checked),
            None => Ok(None),
        }
    }

    /// Where `key` would be: its block, and where in it the search starts
    /// (None: before the first block, so not in the table).  Found once for
    /// both `prefetch` and `index_at`.
    pub fn spot(&self, key: u64) -> Option<Spot> {
        let block = self.block_of(key)?;
        let guess = if self.checks() { self.guess(block, key) } else { 0 };
        Some(Spot { block, guess })
    }

    /// `index(key)`, from `spot(key)`.
    pub fn index_at(&self, key: u64, spot: Spot, checked: &mut [bool]) -> Result<Option<usize>, TableError> {
        let Spot { block, guess } = spot;
        if self.checks() && !checked.get(block).copied().unwrap_or(false) {
            self.check(block)?;
            if let Some(flag) = checked.get_mut(block) {
                *flag = true;
            }
        }
        let (start, end) = self.bounds(block);
        let low = if self.checks() {
            self.lower_bound_near(start, end, key, guess)
        } else {
            self.lower_bound(start, end, key)
        };
        if low < end && self.key(low) == key {
            if self.checks() && !self.weight(low).is_finite() {
                return Err(TableError::Unusable(format!("the weight of token key {key:016x} is not a finite number")));
            }
            return Ok(Some(low));
        }
        Ok(None)
    }

    /// The block that may hold `key`: the last whose first key is at or
    /// below it (None when every block starts above it).  The block index is
    /// small (a key a block), so this search stays in the CPU's caches.
    fn block_of(&self, key: u64) -> Option<usize> {
        let (mut low, mut high) = (0usize, self.blocks());
        while low < high {
            let middle = (low + high) / 2;
            if self.first(middle) <= key {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        low.checked_sub(1)
    }

    /// The entries start..end of `block`.
    fn bounds(&self, block: usize) -> (usize, usize) {
        let start = block * self.block;
        (start, (start + self.block).min(self.len()))
    }

    /// Where in `block` `key` should lie.  The block's keys are checked
    /// increasing (when the file has checksums), and BLAKE2b keys are spread
    /// evenly: where the key falls between this block's first key and the
    /// next block's says where it lies in the block, so the search reads a
    /// cache line or two of the mapped keys instead of one per halving (those
    /// reads were most of a cold lookup).  Only a starting point: any guess
    /// gives the same answer.
    fn guess(&self, block: usize, key: u64) -> usize {
        let (start, end) = self.bounds(block);
        let above = if block + 1 < self.blocks() { self.first(block + 1) } else { u64::MAX };
        let below = self.first(block);
        // In floating point: a starting point needs no exact division (a
        // 128-bit one was a library call a lookup), and `as` saturates
        // whatever the quotient (lower_bound_near clamps it).
        let fraction = key.saturating_sub(below) as f64 / (above.saturating_sub(below) as f64 + 1.0);
        start + (fraction * (end - start) as f64) as usize
    }

    /// Ask the CPU to bring the cache lines `index(key)` will read (the
    /// key and weight at the guessed entry) while other work goes on: a
    /// message's keys are looked up in the mapped file at random, each read
    /// a cache miss (and often a TLB miss), and waiting for them one after
    /// another was most of a lookup's time.  Reads nothing and changes
    /// nothing; a no-op off x86-64 and for tables without checksums.
    pub fn prefetch(&self, spot: Spot) {
        #[cfg(target_arch = "x86_64")]
        if self.checks() {
            {
                let (start, end) = self.bounds(spot.block);
                if start < end {
                    let at = spot.guess.clamp(start, end - 1);
                    for line in [&self.keys[8 * at..], &self.weights[4 * at..]] {
                        // SAFETY: a prefetch is a hint: it never faults and
                        // reads nothing into the program (the pointer is
                        // inside the mapped section all the same).
                        unsafe {
                            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(line.as_ptr().cast());
                        }
                    }
                }
            }
        }
    }

    /// The first index of low..high whose key is at or above `key` (high when none).
    fn lower_bound(&self, mut low: usize, mut high: usize, key: u64) -> usize {
        while low < high {
            let middle = (low + high) / 2;
            if self.key(middle) < key {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        low
    }

    /// lower_bound over increasing keys, starting from `guess`: steps of
    /// 1, 2, 4, ... away from it bracket the answer, then halving finds it,
    /// so a good guess costs a few reads and a bad one at most twice a
    /// plain search's.
    fn lower_bound_near(&self, mut low: usize, mut high: usize, key: u64, guess: usize) -> usize {
        if low >= high {
            return low;
        }
        let guess = guess.clamp(low, high - 1);
        let mut step = 1;
        if self.key(guess) < key {
            low = guess + 1; // every key before `low` is below `key`
            while low + step - 1 < high && self.key(low + step - 1) < key {
                low += step;
                step *= 2;
            }
            high = high.min(low + step);
        } else {
            high = guess; // the key at `high` is at or above `key`
            while high >= low + step && self.key(high - step) >= key {
                high -= step;
                step *= 2;
            }
            if high >= low + step {
                low = high - step + 1;
            }
        }
        self.lower_bound(low, high, key)
    }

    /// The block's checksum, and its keys: strictly increasing, starting at
    /// its index entry and below the next block's.
    fn check(&self, block: usize) -> Result<(), TableError> {
        let start = block * self.block;
        let end = ((block + 1) * self.block).min(self.len());
        let stored = self.crcs.map(|crcs| u32_at(crcs, block));
        if Some(block_crc(self.keys, self.weights, start, end)) != stored {
            return Err(TableError::Corrupt(block));
        }
        let following = if block + 1 < self.blocks() { Some(self.first(block + 1)) } else { None };
        // Each key against the next, read as whole 8-byte chunks: a lookup's
        // first touch of a block checks all of its keys, and indexing them one
        // at a time (two bounds checks a key) was most of a fresh learn's
        // lookups (callgrind).
        let keys = self.keys.get(8 * start..8 * end).unwrap_or(&[]);
        let ordered = keys.chunks_exact(8).zip(keys.chunks_exact(8).skip(1))
            .all(|(key, next)| le_u64(key) < le_u64(next));
        if start >= end || self.key(start) != self.first(block) || following.is_some_and(|next| self.key(end - 1) >= next)
            || !ordered
        {
            return Err(TableError::Unusable(format!("the keys of block {block} are out of order or repeated")));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sections(keys: &[u64], weights: &[f32], block: usize) -> (Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>) {
        let k: Vec<u8> = keys.iter().flat_map(|k| k.to_le_bytes()).collect();
        let w: Vec<u8> = weights.iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut first = Vec::new();
        let mut crcs = Vec::new();
        for start in (0..keys.len()).step_by(block) {
            let end = (start + block).min(keys.len());
            first.extend(keys[start].to_le_bytes());
            crcs.extend(block_crc(&k, &w, start, end).to_le_bytes());
        }
        (k, w, first, crcs)
    }

    #[test]
    fn finds_every_key_and_no_other() {
        let keys: Vec<u64> = (1..=1000).map(|i| i * 7).collect();
        let weights: Vec<f32> = (1..=1000).map(|i| i as f32).collect();
        let (k, w, f, c) = sections(&keys, &weights, 64);
        let table = Table::new(&k, &w, &f, Some(&c), 64).unwrap();
        let mut checked = vec![false; table.blocks()];
        for (i, key) in keys.iter().enumerate() {
            assert_eq!(table.index(*key, &mut checked), Ok(Some(i)));
            assert_eq!(table.index(key + 1, &mut checked), Ok(None));
        }
        assert_eq!(table.index(0, &mut checked), Ok(None));
        assert_eq!(table.weight(9), 10.0);
    }

    #[test]
    fn the_guided_search_finds_what_halving_finds() {
        // Keys bunched at both ends, so that guesses land far off.
        let mut keys: Vec<u64> = (1..=300).map(|i| i * 3).collect();
        keys.extend((1..=300).map(|i| u64::MAX - 10_000 + i * 7));
        let weights = vec![1.0f32; keys.len()];
        let (k, w, f, c) = sections(&keys, &weights, 128);
        let table = Table::new(&k, &w, &f, Some(&c), 128).unwrap();
        let mut checked = vec![false; table.blocks()];
        for probe in keys.iter().flat_map(|&key| [key - 1, key, key + 1]).chain([0, u64::MAX, u64::MAX / 2]) {
            let expected = keys.binary_search(&probe).ok();
            if let Some(spot) = table.spot(probe) {
                table.prefetch(spot); // a hint only: any key, no answer changed
                assert_eq!(table.index_at(probe, spot, &mut checked), Ok(expected), "{probe}");
            }
            assert_eq!(table.index(probe, &mut checked), Ok(expected), "{probe}");
            for guess in [0, 5, 64, 127, 500] {
                let (low, high) = (128, 256);
                assert_eq!(table.lower_bound_near(low, high, probe, guess), table.lower_bound(low, high, probe));
            }
        }
    }

    #[test]
    fn a_damaged_block_is_corrupt_and_a_disordered_one_unusable() {
        let keys: Vec<u64> = (1..=100).collect();
        let weights = vec![1.0f32; 100];
        let (mut k, w, f, c) = sections(&keys, &weights, 10);
        k[8 * 25] ^= 1;
        let table = Table::new(&k, &w, &f, Some(&c), 10).unwrap();
        let mut checked = vec![false; table.blocks()];
        assert_eq!(table.index(25, &mut checked), Err(TableError::Corrupt(2)));
        assert_eq!(table.index(55, &mut checked), Ok(Some(54)));
        let mut keys = keys.clone();
        keys.swap(40, 41);
        let (k, w, f, c) = sections(&keys, &weights, 10);
        let table = Table::new(&k, &w, &f, Some(&c), 10).unwrap();
        let mut checked = vec![false; table.blocks()];
        assert!(matches!(table.index(42, &mut checked), Err(TableError::Unusable(_))));
        assert!(Table::new(&k, &w[4..], &f, Some(&c), 10).is_err());
    }
}
