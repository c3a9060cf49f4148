//! Text of unknown charset: each CJK codec's reading scored, the best kept
//! if it reads better than Windows-1252.

use super::{decode_with, reading_score, western_score};

// The codecs tried on 8-bit text of unknown charset, besides UTF-8, in the
// order that breaks a tie (that of their share of the undeclared 8-bit text
// of the shared corpora): GB18030 (which reads GB2312 and GBK), EUC-KR (as
// CP949), Big5 (as Big5-HKSCS), Shift_JIS (as Windows' CP932) and EUC-JP.
pub const SNIFFED_CODECS: [&str; 5] = ["gb18030", "cp949", "big5hkscs", "cp932", "euc_jp"];

// The bytes each reading is judged on: from the first 8-bit byte, this many
// (some 2,000 CJK characters).  A reading is judged on a bounded sample so
// that the cost of judging stays the same for any size (the whole text must
// still decode); 8 KB chose the same reading for every text of the corpora.
const JUDGED_BYTES: usize = 4096;
// A reading with bad sequences replaced competes only when they are one,
// or at most one in this many of its 8-bit bytes.
const MOSTLY_VALID: usize = 10;

/// (codec, text) of the reading of `data` that reads best, or None.
///
/// Most 8-bit bytes decode strictly in several CJK codecs (Shift_JIS
/// Japanese reads as GB18030, EUC-KR Korean as GB2312, GB2312 as Big5), as
/// text of another language made of rare characters: 丂仭剑 for the
/// full-width spaces and box drawing of a Japanese spam.  So each strict
/// reading is scored as a person would read it (`reading_score`) and the
/// best wins, if it reads better than the Windows-1252 reading of western
/// text (`western_score`).  When no strict reading does, the readings that
/// decode with a few bad sequences replaced compete the same way, each
/// replacement counted against them: a stray bad byte in a long Chinese
/// body does not make it Latin-1.
///
/// Against the rule before it (GB18030 whenever the 8-bit bytes came in
/// pairs, unless 30 % kana or 90 % Hangul said otherwise), measured on the
/// shared corpora with decode_text's ISO-2022-JP rule: trec06p's 1,204
/// spam and 37 ham messages decode otherwise (Shift_JIS, EUC-KR and Big5
/// spam that was GB18030 mojibake; western ham that was too),
/// spamassassin's 17 spam and 4 ham, ccert_zh's 4 spam (Korean) and none
/// of its ham.
pub fn sniff(data: &[u8], cut: bool) -> Option<(&'static str, String)> {
    if let Some(text) = decode_with(data, "utf-8", false, cut) {
        return Some(("utf-8", text));
    }
    let first = data.iter().position(|&b| b >= 0x80);
    // From the ASCII byte before the first 8-bit one: a letter there touches
    // the first character read.
    let start = first.map_or(0, |i| i.saturating_sub(1));
    let judged = &data[start..data.len().min(start + JUDGED_BYTES)];
    let partial = cut || start + JUDGED_BYTES < data.len(); // the judged bytes may end inside a character
    let threshold = western_score(judged).max(0);
    let high_bytes = judged.iter().filter(|&&b| b >= 0x80).count();
    let mut undecoded = [false; SNIFFED_CODECS.len()]; // whose strict reading fails: only theirs change with replacement
    for replace in [false, true] {
        let mut ranked: Vec<(i64, usize, String)> = Vec::new();
        for (index, codec) in SNIFFED_CODECS.iter().enumerate() {
            if replace && !undecoded[index] {
                continue;
            }
            let Some(sample) = decode_with(judged, codec, replace, partial) else {
                undecoded[index] = true;
                continue;
            };
            if replace && sample.chars().filter(|&c| c == '\u{fffd}').count() > 1 + high_bytes / MOSTLY_VALID {
                continue; // not a stray bad byte (a header cut inside a character) but another encoding
            }
            let score = reading_score(&sample, codec);
            if score > threshold {
                ranked.push((score, index, sample));
            }
        }
        // Best first (ties in SNIFFED_CODECS order); the whole text must
        // decode too, which only the readings that may win are asked.
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for (_, index, sample) in ranked {
            let codec = SNIFFED_CODECS[index];
            if start == 0 && !partial {
                return Some((codec, sample));
            }
            match decode_with(data, codec, replace, cut) {
                Some(text) => return Some((codec, text)),
                None => undecoded[index] = true,
            }
        }
    }
    None
}
