//! Sorted runs of keyed counts or token text added up k ways
//! (spamnb/learning/countruns.py's runs: keys sorted and unique).
//!
//! The reading process adds up every batch's run and merges the spilled ones;
//! numpy does that by a stable argsort of the runs put end to end and a
//! reduceat, at a second or two per spamassassin training.  A merge reads
//! each entry once.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::counting::ROWS;

/// Why runs could not be merged here.
#[derive(Debug, PartialEq, Eq)]
pub enum MergeError {
    /// A run's keys are not sorted and unique (its caller sums it another way).
    NotSorted,
    /// An output array is too short.
    NoRoom,
    /// A summed count past u32.
    Overflow,
    /// Two different texts under one key.
    Collision,
}

/// Every entry of the runs in key order, equal keys in run order: (run, index).
fn merged_order(runs: &[&[u64]]) -> Result<Vec<(usize, usize)>, MergeError> {
    if runs.iter().any(|keys| keys.windows(2).any(|pair| pair[0] >= pair[1])) {
        return Err(MergeError::NotSorted);
    }
    let mut heap: BinaryHeap<Reverse<(u64, usize, usize)>> = runs.iter().enumerate()
        .filter(|(_, keys)| !keys.is_empty())
        .map(|(run, keys)| Reverse((keys[0], run, 0)))
        .collect();
    let mut order = Vec::with_capacity(runs.iter().map(|keys| keys.len()).sum());
    while let Some(Reverse((_, run, at))) = heap.pop() {
        order.push((run, at));
        if let Some(&key) = runs[run].get(at + 1) {
            heap.push(Reverse((key, run, at + 1)));
        }
    }
    Ok(order)
}

/// Count runs (keys, and ROWS rows of counts, row after row) summed per key:
/// the keys to `keys`, the counts entry after entry (ROWS a key) to
/// `counts`; returns how many keys were written.
pub fn merge_counts(runs: &[(&[u64], &[u32])], keys: &mut [u64], counts: &mut [u32]) -> Result<usize, MergeError> {
    if runs.iter().any(|(keys, counts)| counts.len() != ROWS * keys.len()) {
        return Err(MergeError::NotSorted);
    }
    let order = merged_order(&runs.iter().map(|(keys, _)| *keys).collect::<Vec<_>>())?;
    let mut written = 0;
    let mut sums = [0u64; ROWS];
    let mut last: Option<u64> = None;
    let mut flush = |key: u64, sums: &[u64; ROWS], written: &mut usize| -> Result<(), MergeError> {
        if *written >= keys.len() || ROWS * (*written + 1) > counts.len() {
            return Err(MergeError::NoRoom);
        }
        keys[*written] = key;
        for (row, sum) in sums.iter().enumerate() {
            counts[ROWS * *written + row] = u32::try_from(*sum).map_err(|_| MergeError::Overflow)?;
        }
        *written += 1;
        Ok(())
    };
    for (run, at) in order {
        let (run_keys, run_counts) = runs[run];
        let key = run_keys[at];
        if last != Some(key) {
            if let Some(previous) = last {
                flush(previous, &sums, &mut written)?;
            }
            sums = [0; ROWS];
            last = Some(key);
        }
        for (row, sum) in sums.iter_mut().enumerate() {
            *sum += u64::from(run_counts[row * run_keys.len() + at]);
        }
    }
    if let Some(previous) = last {
        flush(previous, &sums, &mut written)?;
    }
    Ok(written)
}

/// Text runs (keys, each text's length, the texts end to end) merged with
/// one text per key, the first run's: keys to `keys`, lengths to `lengths`,
/// texts to `text`; returns (keys written, text bytes written).  Two
/// different texts under one key are refused, as countruns.first_text
/// refuses them (the model could be written but never loaded).
pub fn merge_text(runs: &[(&[u64], &[u32], &[u8])], keys: &mut [u64], lengths: &mut [u32], text: &mut [u8])
                  -> Result<(usize, usize), MergeError> {
    let mut starts: Vec<Vec<usize>> = Vec::with_capacity(runs.len());
    for (run_keys, run_lengths, run_text) in runs {
        if run_lengths.len() != run_keys.len() {
            return Err(MergeError::NotSorted);
        }
        let mut at = 0usize;
        let mut run_starts = Vec::with_capacity(run_lengths.len());
        for &length in *run_lengths {
            run_starts.push(at);
            at += length as usize;
        }
        if at > run_text.len() {
            return Err(MergeError::NotSorted);
        }
        starts.push(run_starts);
    }
    let order = merged_order(&runs.iter().map(|(keys, _, _)| *keys).collect::<Vec<_>>())?;
    let (mut written, mut bytes) = (0usize, 0usize);
    let mut last: Option<(u64, usize, usize)> = None; // key, run, index of the text kept
    for (run, at) in order {
        let (run_keys, run_lengths, run_text) = runs[run];
        let key = run_keys[at];
        let piece = &run_text[starts[run][at]..starts[run][at] + run_lengths[at] as usize];
        if let Some((kept_key, kept_run, kept_at)) = last {
            if kept_key == key {
                let (_, kept_lengths, kept_text) = runs[kept_run];
                let kept = &kept_text[starts[kept_run][kept_at]..starts[kept_run][kept_at] + kept_lengths[kept_at] as usize];
                if kept != piece {
                    return Err(MergeError::Collision);
                }
                continue;
            }
        }
        if written >= keys.len() || written >= lengths.len() || bytes + piece.len() > text.len() {
            return Err(MergeError::NoRoom);
        }
        keys[written] = key;
        lengths[written] = run_lengths[at];
        text[bytes..bytes + piece.len()].copy_from_slice(piece);
        written += 1;
        bytes += piece.len();
        last = Some((key, run, at));
    }
    Ok((written, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_per_key_in_key_order() {
        let a: (&[u64], &[u32]) = (&[1, 5], &[1, 2, 0, 0, 1, 1, 0, 0]);
        let b: (&[u64], &[u32]) = (&[5, 9], &[10, 20, 30, 40, 1, 1, 1, 1]);
        let (mut keys, mut counts) = ([0u64; 4], [0u32; 16]);
        assert_eq!(merge_counts(&[a, b], &mut keys, &mut counts), Ok(3));
        assert_eq!(keys[..3], [1, 5, 9]);
        assert_eq!(counts[..12], [1, 0, 1, 0, 12, 30, 2, 1, 20, 40, 1, 1]);
        let unsorted: (&[u64], &[u32]) = (&[5, 1], &[0; 8]);
        assert_eq!(merge_counts(&[unsorted], &mut keys, &mut counts), Err(MergeError::NotSorted));
        let big: (&[u64], &[u32]) = (&[1], &[u32::MAX, 0, 0, 0]);
        assert_eq!(merge_counts(&[big, big], &mut keys, &mut counts), Err(MergeError::Overflow));
        assert_eq!(merge_counts(&[a, b], &mut keys[..2], &mut counts), Err(MergeError::NoRoom));
    }

    #[test]
    fn text_keeps_one_per_key_and_refuses_a_collision() {
        let a: (&[u64], &[u32], &[u8]) = (&[2, 7], &[3, 2], b"twoab");
        let b: (&[u64], &[u32], &[u8]) = (&[1, 7], &[1, 2], b"xab");
        let (mut keys, mut lengths, mut text) = ([0u64; 4], [0u32; 4], [0u8; 16]);
        assert_eq!(merge_text(&[a, b], &mut keys, &mut lengths, &mut text), Ok((3, 6)));
        assert_eq!((keys[..3].to_vec(), lengths[..3].to_vec(), &text[..6]), (vec![1, 2, 7], vec![1, 3, 2], &b"xtwoab"[..]));
        let c: (&[u64], &[u32], &[u8]) = (&[7], &[2], b"zz");
        assert_eq!(merge_text(&[a, c], &mut keys, &mut lengths, &mut text), Err(MergeError::Collision));
    }
}
