//! The core's entry points on arbitrary bytes: a whole message through
//! decoding and tokenizing (every header field read, bigrams on), and the
//! stages a message reaches with attacker-chosen input: charset decoding
//! under each sniffed or declared label, and HTML.  Any panic, overflow or
//! out-of-bounds access is a crash.  RELIABILITY.md says how it is run.

#![no_main]

use libfuzzer_sys::fuzz_target;
use spamnb_core::mail::charsets::decode_text;
use spamnb_core::mail::html::{html_to_text, Budget};
use spamnb_core::text::tokens::{raw_message_tokens, TokenizerOptions};

const LABELS: [&str; 8] = ["utf-8", "gb2312", "big5", "shift_jis", "iso-2022-jp", "utf-7", "hz-gb-2312", "euc-kr"];

fuzz_target!(|data: &[u8]| {
    let options = TokenizerOptions::default();
    let tokens = raw_message_tokens(data, &options);
    for token in &tokens {
        let _ = spamnb_core::model::keys::token_key(token);
    }
    let label = LABELS[data.first().map_or(0, |b| *b as usize) % LABELS.len()];
    let text = decode_text(data, Some(label), data.len() % 2 == 1);
    let _ = html_to_text(&text, &mut Budget::default());
});
