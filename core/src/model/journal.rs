//! The per-token part of a model's journal records (spamnb/model/journal.py
//! holds the format): each record's keys, u64 little-endian and strictly
//! increasing, and four i32 little-endian count changes per key.  Checking a
//! record's keys and finding a message's keys among the records, a Python
//! step per key, were most of a fresh `learn`'s own work (callgrind).

use super::table::{le_u64, u64_at as key_at};

/// Whether `keys` is whole little-endian u64 keys, each above the one before.
pub fn strictly_increasing(keys: &[u8]) -> bool {
    keys.len().is_multiple_of(8)
        && keys.chunks_exact(8).zip(keys.chunks_exact(8).skip(1)).all(|(key, next)| le_u64(key) < le_u64(next))
}

/// Why `sums` refused its input.
#[derive(Debug, PartialEq)]
pub struct Mismatch;

/// For each needle, the four changes summed over every record holding its
/// key (None where none does).  A record is (keys, changes): n keys of 8
/// bytes, strictly increasing, and 16 bytes of changes per key; one whose
/// sizes disagree is refused (Mismatch).  O(needles × records × log keys):
/// the caller keeps needles × records within a multiple of the entries the
/// records hold, over all its calls, and adds the journal up whole past it
/// (spamnb/model/journal.py, BATCH_STEPS_PER_ENTRY), so a reader's work stays
/// linear in the journal.
pub fn sums(records: &[(&[u8], &[u8])], needles: &[u64]) -> Result<Vec<Option<[i64; 4]>>, Mismatch> {
    for (keys, changes) in records {
        if !keys.len().is_multiple_of(8) || changes.len() != 2 * keys.len() {
            return Err(Mismatch);
        }
    }
    let mut found = vec![None; needles.len()];
    for (keys, changes) in records {
        let count = keys.len() / 8;
        for (slot, &needle) in found.iter_mut().zip(needles) {
            let at = partition_point(count, |index| key_at(keys, index) < needle);
            if at < count && key_at(keys, at) == needle {
                let total: &mut [i64; 4] = slot.get_or_insert([0; 4]);
                for (part, sum) in total.iter_mut().enumerate() {
                    let start = 16 * at + 4 * part;
                    let mut bytes = [0u8; 4];
                    bytes.copy_from_slice(&changes[start..start + 4]);
                    *sum += i64::from(i32::from_le_bytes(bytes));
                }
            }
        }
    }
    Ok(found)
}

/// The first index in 0..count where `below` is false (it is true, then
/// false): slice::partition_point over keys read from bytes, which may not
/// be aligned for a &[u64].
fn partition_point(count: usize, below: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, count);
    while low < high {
        let middle = low + (high - low) / 2;
        if below(middle) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(values: &[u64]) -> Vec<u8> {
        values.iter().flat_map(|key| key.to_le_bytes()).collect()
    }

    fn changes(values: &[i32]) -> Vec<u8> {
        values.iter().flat_map(|change| change.to_le_bytes()).collect()
    }

    #[test]
    fn increasing_keys_are_told_from_others() {
        assert!(strictly_increasing(&keys(&[])));
        assert!(strictly_increasing(&keys(&[7])));
        assert!(strictly_increasing(&keys(&[1, 2, u64::MAX])));
        assert!(!strictly_increasing(&keys(&[1, 1])));
        assert!(!strictly_increasing(&keys(&[2, 1])));
        assert!(!strictly_increasing(&[0u8; 9]));
    }

    #[test]
    fn sums_add_each_record_holding_a_key() {
        let (first_keys, first_changes) = (keys(&[3, 9]), changes(&[1, 2, 3, 4, -1, 0, -1, 0]));
        let (second_keys, second_changes) = (keys(&[9, 20]), changes(&[5, 5, 1, 1, 0, 7, 0, 1]));
        let records = [(&first_keys[..], &first_changes[..]), (&second_keys[..], &second_changes[..])];
        assert_eq!(sums(&records, &[9, 3, 4, 20, u64::MAX, 0]),
                   Ok(vec![Some([4, 5, 0, 1]), Some([1, 2, 3, 4]), None, Some([0, 7, 0, 1]), None, None]));
        assert_eq!(sums(&records, &[]), Ok(vec![]));
    }

    #[test]
    fn records_whose_sizes_disagree_are_refused() {
        let (short_keys, short_changes) = (keys(&[1, 2]), changes(&[0; 4]));
        assert_eq!(sums(&[(&short_keys[..], &short_changes[..])], &[1]), Err(Mismatch));
        assert_eq!(sums(&[(&[0u8; 7][..], &[0u8; 14][..])], &[1]), Err(Mismatch));
    }
}
