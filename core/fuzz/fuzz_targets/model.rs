//! The core's readers of a model file on arbitrary bytes: a scoring table
//! (keys, weights, block index, block checksums; each either consistent with
//! the keys or taken from the input as an attacker would write it) and every
//! lookup in it, a journal's records summed for a batch of keys, and the
//! sorted searches of counting.  Any panic, overflow or out-of-bounds access
//! is a crash; a refusal (an Err) is what hostile bytes should get.
//! RELIABILITY.md says how it is run.

#![no_main]

use libfuzzer_sys::fuzz_target;
use spamnb_core::model::{journal, positions, table};

fn u64s(bytes: &[u8]) -> Vec<u64> {
    bytes.chunks_exact(8).map(|chunk| u64::from_le_bytes(chunk.try_into().unwrap_or_default())).collect()
}

fn scoring_table(data: &[u8]) {
    let Some((&flags, rest)) = data.split_first() else { return };
    let block = 1 + usize::from(flags & 0x0f);
    let count = rest.len() / 12;
    let (keys, rest) = rest.split_at(8 * count);
    let weights = &rest[..4 * count];
    // Mostly a sound table (keys sorted and distinct, as a writer stores them),
    // so that lookups reach every block's checks; else the keys as given.
    let mut sorted = u64s(keys);
    if flags & 0x80 == 0 {
        sorted.sort_unstable();
        sorted.dedup();
        sorted.resize(count, u64::MAX);
    }
    let owned: Vec<u8> = sorted.iter().flat_map(|key| key.to_le_bytes()).collect();
    let keys = owned.as_slice();
    let blocks = count.div_ceil(block);
    let first: Vec<u8> = if flags & 0x10 == 0 {
        keys.chunks(8 * block).flat_map(|chunk| chunk[..8].to_vec()).collect()
    } else {
        keys.iter().rev().copied().cycle().take(8 * blocks).collect()
    };
    let crcs: Vec<u8> = if flags & 0x20 == 0 {
        table::block_crcs(keys, weights, block).iter().flat_map(|crc| crc.to_le_bytes()).collect()
    } else {
        weights.iter().copied().cycle().take(4 * blocks).collect()
    };
    let crcs = (flags & 0x40 == 0).then_some(crcs.as_slice());
    let Ok(found) = table::Table::new(keys, weights, &first, crcs, block) else { return };
    let mut checked = vec![false; blocks];
    let needles = u64s(keys).into_iter().take(256).chain([0, 1, u64::MAX, u64::MAX - 1]);
    for key in needles {
        if let Ok(Some(index)) = found.index(key, &mut checked) {
            let _ = found.weight(index);
        }
        if let Some(spot) = found.spot(key.wrapping_add(1)) {
            found.prefetch(spot);
            let _ = found.index_at(key.wrapping_add(1), spot, &mut checked);
        }
    }
}

fn journal_records(data: &[u8]) {
    let _ = journal::strictly_increasing(data);
    let mut records = Vec::new();
    let mut rest = data;
    while let Some((&size, tail)) = rest.split_first() {
        let keys_length = 8 * usize::from(size % 16) + usize::from(size >> 7);  // now and then not whole keys
        let keys = &tail[..keys_length.min(tail.len())];
        let tail = &tail[keys.len()..];
        let changes = &tail[..(2 * keys.len()).min(tail.len())];
        records.push((keys, changes));
        rest = &tail[changes.len()..];
    }
    let needles = u64s(data);
    let _ = journal::sums(&records, &needles);
}

fn sorted_searches(data: &[u8]) {
    let mut sorted = u64s(data);
    let needles: Vec<u64> = sorted.iter().map(|key| key.rotate_left(7)).chain([0, u64::MAX]).collect();
    let mut out = vec![0u64; needles.len()];
    positions::positions(&sorted, &needles, &mut out);  // not sorted: wrong places, never a crash
    sorted.sort_unstable();
    positions::positions(&sorted, &needles, &mut out);
    assert!(out.iter().all(|&at| at as usize <= sorted.len()));
}

fuzz_target!(|data: &[u8]| {
    scoring_table(data);
    journal_records(data);
    sorted_searches(data);
});
