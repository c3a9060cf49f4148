//! Training's counting: raw messages → tokens → keys → the four counts per key.
//!
//! Per token w of a batch: N_ham,w and N_spam,w (occurrences), D_ham,w and
//! D_spam,w (messages holding it).  A batch's counts come out as a *run*
//! (spamnb/learning/countruns.py): keys sorted and unique, the counts beside
//! them; the text of each token is sent once per training run, the first
//! time its worker meets it.

use ahash::AHashMap;

use super::keys;
use crate::surrogates::surrogatepass_bytes;
use crate::text::tokens::{raw_message_tokens, TokenizerOptions};

/// Occurrences ham, spam; documents ham, spam.
pub const ROWS: usize = 4;

/// Tokens a counter remembers (their key, and that their text was sent)
/// before it starts again: a bound on a worker's memory whatever the
/// vocabulary.  A text sent twice is merged away (countruns.combine).
pub const KEY_CACHE: usize = 1 << 18;

/// What one batch adds up to.
#[derive(Debug, Default)]
pub struct BatchCounts {
    /// The batch's token keys, sorted and unique.
    pub keys: Vec<u64>,
    /// ROWS rows of keys.len() counts, row after row.
    pub counts: Vec<u32>,
    /// The keys whose text this counter had not sent before, sorted.
    pub text_keys: Vec<u64>,
    /// Each of those tokens' text, as UTF-8 bytes ("surrogatepass" for a
    /// surrogate stand-in, crate::surrogates), its length in text_lengths.
    pub text_lengths: Vec<u32>,
    pub text: Vec<u8>,
    /// Messages counted per class (ham, spam).
    pub messages: [u64; 2],
    /// The token keys, in token order, of each message asked to be kept.
    pub kept: Vec<Vec<u64>>,
}

/// Why a batch could not be counted.
#[derive(Debug, PartialEq, Eq)]
pub enum CountError {
    /// A label other than 0 (ham) or 1 (spam).
    Label(u8),
    /// A count past u32 (the model format's counts).
    Overflow,
}

impl std::fmt::Display for CountError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CountError::Label(label) => write!(f, "label {label} is neither ham (0) nor spam (1)"),
            CountError::Overflow => write!(f, "a count past {}: out of range for the model format", u32::MAX),
        }
    }
}

/// Counts batches of one training run.  Across batches it remembers each
/// token's slot (its key, hashed once: BLAKE2b is the dearest step after
/// tokenizing) up to KEY_CACHE tokens; a token met for the first time
/// since then has its text sent.
#[derive(Default)]
pub struct TokenCounter {
    slots: AHashMap<Box<str>, u32>,
    keys: Vec<u64>,
    /// Per slot, this batch: the four counts, and the last message (1-based
    /// in the batch) whose document count it has had.
    counts: Vec<[u32; ROWS]>,
    last_message: Vec<u32>,
    /// The slots this batch touched; the keys it created, each with where
    /// its token's text lies in `created_text`.
    touched: Vec<u32>,
    created: Vec<(u64, usize, usize)>,
    created_text: Vec<u8>,
}

impl TokenCounter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Decode, tokenize and count a batch of (raw message, label, keep)
    /// messages.  Labels: 0 ham, 1 spam.
    pub fn count_batch(&mut self, batch: &[(&[u8], u8, bool)], options: &TokenizerOptions)
                       -> Result<BatchCounts, CountError> {
        if let Some(&(_, label, _)) = batch.iter().find(|(_, label, _)| *label > 1) {
            return Err(CountError::Label(label));
        }
        if self.slots.len() > KEY_CACHE {
            self.forget();
        }
        let mut out = BatchCounts::default();
        let result = self.count_into(batch, options, &mut out);
        let finished = result.and_then(|()| self.finish(&mut out));
        self.reset_batch();
        finished.map(|()| out)
    }

    fn forget(&mut self) {
        self.slots.clear();
        self.keys.clear();
        self.counts.clear();
        self.last_message.clear();
    }

    fn count_into(&mut self, batch: &[(&[u8], u8, bool)], options: &TokenizerOptions, out: &mut BatchCounts)
                  -> Result<(), CountError> {
        for (number, &(raw, label, keep)) in batch.iter().enumerate() {
            let label = usize::from(label);
            let message = u32::try_from(number + 1).map_err(|_| CountError::Overflow)?;
            let tokens = raw_message_tokens(raw, options);
            let mut kept = Vec::with_capacity(if keep { tokens.len() } else { 0 });
            for token in &tokens {
                let slot = self.slot(token);
                let at = slot as usize;
                let counts = &mut self.counts[at];
                if counts == &[0; ROWS] {
                    self.touched.push(slot);
                }
                counts[label] = counts[label].checked_add(1).ok_or(CountError::Overflow)?;
                if self.last_message[at] != message {
                    self.last_message[at] = message;
                    counts[2 + label] = counts[2 + label].checked_add(1).ok_or(CountError::Overflow)?;
                }
                if keep {
                    kept.push(self.keys[at]);
                }
            }
            out.messages[label] += 1;
            if keep {
                out.kept.push(kept);
            }
        }
        Ok(())
    }

    /// A token's slot, made (its key hashed) the first time it is met.
    fn slot(&mut self, token: &str) -> u32 {
        if let Some(&slot) = self.slots.get(token) {
            return slot;
        }
        let slot = self.keys.len() as u32;
        let text = surrogatepass_bytes(token);
        let key = keys::key_of_bytes(&text);
        self.created.push((key, self.created_text.len(), text.len()));
        self.created_text.extend_from_slice(&text);
        self.slots.insert(token.into(), slot);
        self.keys.push(key);
        self.counts.push([0; ROWS]);
        self.last_message.push(0);
        slot
    }

    /// The touched slots' counts as a run, and the created slots' text.
    fn finish(&mut self, out: &mut BatchCounts) -> Result<(), CountError> {
        let keys = &self.keys;
        self.touched.sort_unstable_by_key(|&slot| keys[slot as usize]);
        // Two tokens under one key (a 64-bit collision: once in 10^5 models
        // of 10 million tokens) add up, as countruns.sum_counts adds them.
        let mut merged: Vec<(u64, [u64; ROWS])> = Vec::with_capacity(self.touched.len());
        for &slot in &self.touched {
            let key = keys[slot as usize];
            let counts = self.counts[slot as usize];
            match merged.last_mut() {
                Some((last, sums)) if *last == key => {
                    for (sum, count) in sums.iter_mut().zip(counts) {
                        *sum += u64::from(count);
                    }
                }
                _ => merged.push((key, counts.map(u64::from))),
            }
        }
        out.keys = merged.iter().map(|(key, _)| *key).collect();
        out.counts = Vec::with_capacity(ROWS * merged.len());
        for row in 0..ROWS {
            for (_, sums) in &merged {
                out.counts.push(u32::try_from(sums[row]).map_err(|_| CountError::Overflow)?);
            }
        }
        // Text: the tokens this counter has not sent before.  Two texts under
        // one key stay two entries, for countruns.combine to refuse.
        self.created.sort_by_key(|(key, _, _)| *key);
        out.text.reserve(self.created_text.len());
        for &(key, start, length) in &self.created {
            out.text_keys.push(key);
            out.text_lengths.push(u32::try_from(length).map_err(|_| CountError::Overflow)?);
            out.text.extend_from_slice(&self.created_text[start..start + length]);
        }
        Ok(())
    }

    /// Ready for the next batch: this one's counts cleared, its slots kept.
    fn reset_batch(&mut self) {
        for &slot in &self.touched {
            self.counts[slot as usize] = [0; ROWS];
            self.last_message[slot as usize] = 0;
        }
        self.touched.clear();
        self.created.clear();
        self.created_text.clear();
    }
}

/// Each message's distinct keys in the order they first occur, and how
/// often each occurs (Counter(keys) per message), for messages given as
/// their keys one after another with each message's length in `sizes`.
/// Writes the distinct keys and their counts, message after message, to the
/// front of `distinct` and `counts` (at most keys.len() of each are needed)
/// and each message's number of distinct keys to `per_message`; returns
/// how many were written in all.  Keys past the sum of `sizes` are left
/// out; sizes past the keys are cut; an output too short stops the writing
/// (`per_message` then says how far it got).
pub fn distinct_keys(keys: &[u64], sizes: &[u64], distinct: &mut [u64], counts: &mut [u32],
                     per_message: &mut [u64]) -> usize {
    let room = distinct.len().min(counts.len());
    let mut written = 0;
    let mut index: AHashMap<u64, usize> = AHashMap::new();
    let mut start: usize = 0;
    for (&size, out) in sizes.iter().zip(per_message.iter_mut()) {
        let end = start.saturating_add(usize::try_from(size).unwrap_or(usize::MAX)).min(keys.len());
        let first = written;
        index.clear();
        for &key in &keys[start..end] {
            match index.get(&key) {
                Some(&at) => counts[at] = counts[at].saturating_add(1),
                None if written < room => {
                    index.insert(key, written);
                    distinct[written] = key;
                    counts[written] = 1;
                    written += 1;
                }
                None => return written,
            }
        }
        *out = (written - first) as u64;
        start = end;
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> TokenizerOptions {
        TokenizerOptions { stopwords: Default::default(), ..TokenizerOptions::default() }
    }

    fn count_of(out: &BatchCounts, key: u64) -> [u32; ROWS] {
        let at = out.keys.binary_search(&key).expect("the key is counted");
        let n = out.keys.len();
        [out.counts[at], out.counts[n + at], out.counts[2 * n + at], out.counts[3 * n + at]]
    }

    #[test]
    fn counts_occurrences_and_documents_per_class() {
        let batch: [(&[u8], u8, bool); 3] = [
            (b"Subject: hi\n\nfree free money", 1, true),
            (b"Subject: hi\n\nfree lunch", 0, false),
            (b"Subject: hi\n\nmoney", 1, false),
        ];
        let mut counter = TokenCounter::new();
        let out = counter.count_batch(&batch, &options()).unwrap();
        assert_eq!(out.messages, [1, 2]);
        assert!(out.keys.windows(2).all(|pair| pair[0] < pair[1]));
        assert_eq!(count_of(&out, keys::token_key("free")), [1, 2, 1, 1]);
        assert_eq!(count_of(&out, keys::token_key("money")), [0, 2, 0, 2]);
        assert_eq!(out.kept.len(), 1);
        let tokens = raw_message_tokens(batch[0].0, &options());
        assert_eq!(out.kept[0], keys::token_keys(tokens.iter().map(String::as_str)));
        // Every counted token's text is sent, once, in key order.
        assert_eq!(out.text_keys, out.keys);
        let free = out.text_keys.binary_search(&keys::token_key("free")).unwrap();
        let start: u32 = out.text_lengths[..free].iter().sum();
        assert_eq!(&out.text[start as usize..start as usize + 4], b"free");
    }

    #[test]
    fn text_is_sent_once_and_counts_start_again_per_batch() {
        let mut counter = TokenCounter::new();
        let first = counter.count_batch(&[(b"Subject: a\n\nfree", 0, false)], &options()).unwrap();
        let second = counter.count_batch(&[(b"Subject: a\n\nfree money", 1, false)], &options()).unwrap();
        assert!(first.text_keys.contains(&keys::token_key("free")));
        assert!(second.text_keys.contains(&keys::token_key("money")));
        assert!(!second.text_keys.contains(&keys::token_key("free")));
        assert!(second.text_keys.len() < second.keys.len());
        assert_eq!(count_of(&second, keys::token_key("free")), [0, 1, 0, 1]);
        assert_eq!(second.messages, [0, 1]);
    }

    #[test]
    fn refuses_a_label_that_is_no_class() {
        let mut counter = TokenCounter::new();
        assert_eq!(counter.count_batch(&[(b"x", 2, false)], &options()).unwrap_err(), CountError::Label(2));
    }

    #[test]
    fn empty_and_hostile_messages_count_without_panic() {
        let mut counter = TokenCounter::new();
        let out = counter.count_batch(&[(b"", 0, true), (b"\xff\xfe\x00\r\n\r\n\xed\xa0\x80", 1, true)], &options())
            .unwrap();
        assert_eq!(out.messages, [1, 1]);
        assert_eq!(out.kept.len(), 2);
    }

    #[test]
    fn distinct_keys_in_first_occurrence_order() {
        let keys = [5, 3, 5, 9, 3, 3, 7, 7];
        let (mut distinct, mut counts, mut sizes) = ([0; 8], [0; 8], [9; 3]);
        assert_eq!(distinct_keys(&keys, &[6, 0, 2], &mut distinct, &mut counts, &mut sizes), 4);
        assert_eq!(distinct[..4], [5, 3, 9, 7]);
        assert_eq!(counts[..4], [2, 3, 1, 2]);
        assert_eq!(sizes, [3, 0, 1]);
        let (mut distinct, mut counts, mut sizes) = ([0; 1], [0; 1], [0; 2]);
        assert_eq!(distinct_keys(&[1], &[5, 5], &mut distinct, &mut counts, &mut sizes), 1);
        assert_eq!(sizes, [1, 0]);
        // Too little room: stops, without a panic.
        let (mut distinct, mut counts, mut sizes) = ([0; 2], [0; 2], [0; 3]);
        assert_eq!(distinct_keys(&keys, &[6, 0, 2], &mut distinct, &mut counts, &mut sizes), 2);
    }
}
