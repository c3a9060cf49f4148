//! Ported from spamnb/text/ (tokens.py, normalise): NFKC and case folding,
//! with the bounds that keep them linear; and the few Python `str` and `re`
//! rules the tokenizer leans on (`\w`, `\d`, `\s`, casefold, lower, strip),
//! from tables of the Python the tokenizer was measured with (pyunicode.rs,
//! Unicode 14), not from Rust's own Unicode data, which is newer and
//! classes characters otherwise (Rust's `\w` is Alphabetic + Mark +
//! Decimal + Connector; Python's is str.isalnum() or "_").

use std::borrow::Cow;

use unicode_normalization::UnicodeNormalization;

#[path = "pyunicode.rs"]
pub mod pyunicode;
#[path = "nfkc_boundary.rs"]
mod nfkc_boundary;

#[inline(never)]
fn in_ranges(table: &[(u32, u32)], c: char) -> bool {
    let code = c as u32;
    table
        .binary_search_by(|&(start, end)| {
            if end < code {
                std::cmp::Ordering::Less
            } else if start > code {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// The classes of every Basic Multilingual Plane code point, made from
/// pyunicode.rs's tables and nfkc_boundary.rs by build.rs
/// (build_tables/bmp_classes.rs), laid out as bmp_layout.rs says.  Two loads
/// where a search of a class's ranges took ten steps for each Han character.
static BMP_CLASSES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/bmp_classes.bin"));

#[path = "../../build_tables/bmp_layout.rs"]
mod bmp_layout;
use bmp_layout::{DECIMAL_BIT, DIGIT_BIT, LEAF, NFKC_BOUNDARY_BIT, SPACE_BIT, STAGE1_BYTES, UNASSIGNED_BIT, WORD_BIT};

/// The class bits of a BMP code point; None above U+FFFF (or from a table
/// of the wrong shape, which the unit tests refuse).
#[inline]
fn bmp_classes(code: usize) -> Option<u8> {
    if code > 0xFFFF {
        return None;
    }
    let block = code / LEAF;
    let &[low, high] = BMP_CLASSES.get(2 * block..2 * block + 2)? else { return None };
    let leaf = usize::from(u16::from_le_bytes([low, high]));
    BMP_CLASSES.get(STAGE1_BYTES + leaf * LEAF + code % LEAF).copied()
}

/// Whether `c` is in the class `bit` stands for (whose ranges are `table`).
#[inline]
fn in_class(bit: u8, table: &[(u32, u32)], c: char) -> bool {
    match bmp_classes(c as usize) {
        Some(classes) => classes & bit != 0,
        None => in_ranges(table, c),
    }
}

fn mapped(table: &'static [(u32, &'static str)], c: char) -> Option<&'static str> {
    let code = c as u32;
    table
        .binary_search_by_key(&code, |&(key, _)| key)
        .ok()
        .map(|index| table[index].1)
}

/// Python `re`'s `\w` for str patterns: str.isalnum() or "_".
// Inlined (the table search is not): the Latin scan asks it of every
// character, mostly ASCII, and a call each was 7 % of a bulk classify's
// core instructions.
#[inline(always)]
pub fn is_word(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    in_class(WORD_BIT, pyunicode::WORD, c)
}

/// Python `re`'s `\s` and str.isspace() (also \x1c-\x1f, which Unicode's
/// White_Space leaves out).
pub fn is_space(c: char) -> bool {
    if c.is_ascii() {
        return matches!(c, '\t'..='\r' | '\x1c'..='\x1f' | ' ');
    }
    in_class(SPACE_BIT, pyunicode::SPACE, c)
}

/// Python `re`'s `\d` for str patterns: str.isdecimal().
pub fn is_decimal(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    in_class(DECIMAL_BIT, pyunicode::DECIMAL, c)
}

/// str.isdigit() of one character.
pub fn is_digit(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    in_class(DIGIT_BIT, pyunicode::DIGIT, c)
}

/// Unassigned in the Python tokenizer's Unicode version.
fn is_unassigned(c: char) -> bool {
    !c.is_ascii() && in_class(UNASSIGNED_BIT, pyunicode::UNASSIGNED, c)
}

/// str.casefold(): full case folding, a character at a time.
pub fn casefold(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else {
            match mapped(pyunicode::CASEFOLD, c) {
                Some(folded) => out.push_str(folded),
                None => out.push(c),
            }
        }
    }
    out
}

/// str.lower(): full lower-case mapping, a character at a time (Python's
/// lower() has one context rule, final sigma, which casefold() has not;
/// it is kept here: Σ at a word's end lowers to ς).
pub fn lower(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (index, &c) in chars.iter().enumerate() {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else if c == '\u{3a3}' && final_sigma(&chars, index) {
            out.push('\u{3c2}');
        } else {
            match mapped(pyunicode::LOWER, c) {
                Some(lowered) => out.push_str(lowered),
                None => out.push(c),
            }
        }
    }
    out
}

/// CPython's handle_capital_sigma: a cased letter before (skipping
/// case-ignorable characters) and none after.
fn final_sigma(chars: &[char], index: usize) -> bool {
    let cased = |c: char| c.is_lowercase() || c.is_uppercase() || is_titlecase(c);
    let ignorable = |c: char| unicode_case_ignorable(c);
    let mut before = index;
    let mut found_before = false;
    while before > 0 {
        before -= 1;
        let c = chars[before];
        if ignorable(c) {
            continue;
        }
        found_before = cased(c);
        break;
    }
    if !found_before {
        return false;
    }
    let mut after = index + 1;
    while after < chars.len() {
        let c = chars[after];
        if ignorable(c) {
            after += 1;
            continue;
        }
        return !cased(c);
    }
    true
}

fn is_titlecase(c: char) -> bool {
    // Titlecase letters (Lt) are few: the digraphs and Greek letters with prosgegrammeni.
    matches!(c as u32, 0x1C5 | 0x1C8 | 0x1CB | 0x1F2 | 0x1F88..=0x1F8F | 0x1F98..=0x1F9F
        | 0x1FA8..=0x1FAF | 0x1FBC | 0x1FCC | 0x1FFC)
}

fn unicode_case_ignorable(c: char) -> bool {
    // An approximation good enough for the hostnames it serves: combining
    // marks, apostrophes, periods and colons, modifier letters.
    matches!(c, '\'' | '.' | ':' | '^' | '`' | '\u{ad}' | '\u{b7}' | '\u{2019}')
        || unicode_normalization::char::is_combining_mark(c)
}

/// str.strip(): `text` without Python whitespace at either end.
pub fn strip(text: &str) -> &str {
    text.trim_matches(is_space)
}

/// Python's str.splitlines() (without the line ends).
pub fn splitlines(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((index, c)) = chars.next() {
        if matches!(c, '\n' | '\r' | '\x0b' | '\x0c' | '\x1c' | '\x1d' | '\x1e' | '\u{85}' | '\u{2028}' | '\u{2029}') {
            out.push(&text[start..index]);
            let mut end = index + c.len_utf8();
            if c == '\r' {
                if let Some(&(_, '\n')) = chars.peek() {
                    chars.next();
                    end += 1;
                }
            }
            start = end;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// NFKC as Unicode 14 gives it.  unicode-normalization carries a newer
/// Unicode, which decomposes and composes characters that Unicode 14 had
/// not assigned; such a character is a starter that never composes or
/// decomposes in Unicode 14, so the text either side of it is normalised
/// alone and it is kept as it is.
pub fn nfkc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0; // text[..copied] is in out
    let mut boundary = 0; // where the last boundary character starts
    let mut changing = false; // text[boundary..] holds a character that is not a boundary
    for (index, c) in text.char_indices() {
        if is_unassigned(c) {
            push_piece(&mut out, &text[copied..index], changing);
            out.push(c);
            copied = index + c.len_utf8();
            boundary = copied;
            changing = false;
        } else if is_nfkc_boundary(c) {
            if changing {
                push_piece(&mut out, &text[copied..index], true);
                copied = index;
                changing = false;
            }
            boundary = index;
        } else if !changing {
            out.push_str(&text[copied..boundary]);
            copied = boundary;
            changing = true;
        }
    }
    push_piece(&mut out, &text[copied..], changing);
    out
}

/// Whether NFKC may cut a text before `c` (nfkc_boundary.rs): read from
/// the BMP table, asked of the normaliser above it.  Only the pieces that
/// hold a character that is not a boundary go through the normaliser, the
/// rest is copied (mail with one non-ASCII character, a no-break space or a
/// curly quote, is mostly text NFKC leaves alone: whole texts through the
/// normaliser were 11 % of the core's instructions in a bulk classify).
#[inline]
fn is_nfkc_boundary(c: char) -> bool {
    match bmp_classes(c as usize) {
        Some(classes) => classes & NFKC_BOUNDARY_BIT != 0,
        None => nfkc_boundary::is_nfkc_boundary(c),
    }
}

/// A piece of text between boundaries appended to `out`: in NFKC when it
/// holds a character NFKC may change, else as it is.
fn push_piece(out: &mut String, piece: &str, changing: bool) {
    if changing {
        out.extend(piece.nfkc());
    } else {
        out.push_str(piece);
    }
}

/// NFKD as Unicode 14 gives it (see `nfkc`).
pub fn nfkd(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut start = 0;
    for (index, c) in text.char_indices() {
        if is_unassigned(c) {
            out.extend(text[start..index].nfkd());
            out.push(c);
            start = index + c.len_utf8();
        }
    }
    out.extend(text[start..].nfkd());
    out
}

// Case folding makes FREE, Free and free one token: without it 0.330 / 0.017.
// NFKC folds full-width letters (Ｆｒｅｅ), circled and compatibility
// ideographs (㊣) and ligatures, which spam uses to dodge word filters; it
// measured level on these 2002-05 corpora (0.273 / 0.017 without), which
// barely use such tricks, and stays for the mail that does.
//
// Two bounds keep NFKC linear (neither is ever reached by the shared corpora):
// - it puts each run of combining marks in canonical order by insertion
//   sort, quadratic in the run's length ("a" and 200,000 marks of two
//   classes: minutes).  Runs of over 30 marks are cut by U+034F, as
//   Unicode's stream-safe format (UAX #15) does; the marks never were
//   part of a word token, and the letter before them is still read;
// - its cost and output grow with what a character expands to, up to 18
//   characters (U+FDFA): 500,000 of them took 1.2 s and gave 9 million
//   characters.  Past a message's budget of such characters (those that
//   expand to 4 or more) a text is case-folded only, so its characters
//   are still read, as they are.

/// `text` in NFKC, case-folded.  `expansions`: how many characters that
/// NFKC expands to 4 or more the caller's budget still allows (None: no
/// bound); spent by what this text holds, or set to 0 when it holds more.
pub fn normalise(text: &str, expansions: Option<&mut i64>) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    if let Some(left) = expansions {
        let expanders = text.chars().filter(|&c| is_expander(c)).count() as i64;
        if expanders > 0 {
            if expanders > *left {
                *left = 0;
                return casefold(&stream_safe(text));
            }
            *left -= expanders;
        }
    }
    casefold(&nfkc(&stream_safe(text)))
}

/// Characters whose NFKC form is 4 or more characters long (Unicode 14,
/// checked against Python's unicodedata by the tests).
pub fn is_expander(c: char) -> bool {
    matches!(c as u32,
        0x2057 | 0x2152 | 0x2167 | 0x2177 | 0x247D..=0x2487 | 0x2A0C | 0x321D..=0x321E
        | 0x3300..=0x3302 | 0x3304 | 0x3307..=0x3308 | 0x330C..=0x330D | 0x3312..=0x3313
        | 0x3315..=0x3317 | 0x3319..=0x331B | 0x331F..=0x3321 | 0x332B | 0x332D..=0x332E
        | 0x3332..=0x3334 | 0x3336 | 0x333D | 0x3343 | 0x3347..=0x3348 | 0x334A
        | 0x334C..=0x334D | 0x3351 | 0x3354 | 0x3356 | 0x337F | 0x3389 | 0x33A8
        | 0x33AE..=0x33AF | 0x33C2 | 0x33C6 | 0x33D8 | 0xFDF2..=0xFDF8 | 0xFDFA..=0xFDFC)
}

/// Combining marks cut by U+034F in a run longer than this (UAX #15's stream-safe format).
pub const MAX_MARKS: usize = 30;
const GRAPHEME_JOINER: char = '\u{34f}'; // COMBINING GRAPHEME JOINER

/// A character whose decomposition can start with a combining mark is at or
/// above U+0300 and neither a word character nor a space, but for the two
/// half-width kana voicing marks (checked by the tests).  Runs of at least
/// MAX_MARKS - 4 such characters are looked at one by one.
fn is_mark_candidate(c: char) -> bool {
    (c as u32 >= 0x300 && !is_word(c) && !is_space(c)) || c == '\u{ff9e}' || c == '\u{ff9f}'
}

/// (combining marks its NFKD form starts with, ends with, whether it is only marks).
fn marks(c: char) -> (usize, usize, bool) {
    let code = c as u32;
    match pyunicode::MARKS.binary_search_by_key(&code, |&(key, ..)| key) {
        Ok(index) => {
            let (_, leading, trailing, only) = pyunicode::MARKS[index];
            (leading as usize, trailing as usize, only)
        }
        Err(_) => (0, 0, false),
    }
}

/// `text` with U+034F after every MAX_MARKS combining marks in a row (UAX #15).
pub fn stream_safe(text: &str) -> Cow<'_, str> {
    if !has_long_candidate_run(text) {
        return Cow::Borrowed(text);
    }
    let chars: Vec<char> = text.chars().collect();
    // The runs of MAX_MARKS - 4 or more candidates, as (start, end) in chars.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut index = 0;
    while index < chars.len() {
        if is_mark_candidate(chars[index]) {
            let start = index;
            while index < chars.len() && is_mark_candidate(chars[index]) {
                index += 1;
            }
            if index - start >= MAX_MARKS - 4 {
                runs.push((start, index));
            }
        } else {
            index += 1;
        }
    }
    if runs.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut position = 0;
    for (run_start, run_end) in runs {
        let start = run_start.saturating_sub(1).max(position); // the character before may end in marks
        out.extend(&chars[position..start]);
        let mut count = 0;
        for &c in &chars[start..run_end] {
            let (leading, trailing, only_marks) = marks(c);
            if count + leading > MAX_MARKS {
                out.push(GRAPHEME_JOINER);
                count = 0;
            }
            count = if only_marks { count + leading } else { trailing };
            out.push(c);
        }
        position = run_end;
    }
    out.extend(&chars[position..]);
    Cow::Owned(out)
}

/// Whether `text` holds a run of MAX_MARKS - 4 or more mark candidates
/// (most texts hold none: they are scanned without collecting their characters).
fn has_long_candidate_run(text: &str) -> bool {
    let mut run = 0;
    for c in text.chars() {
        if is_mark_candidate(c) {
            run += 1;
            if run >= MAX_MARKS - 4 {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_table_agrees_with_the_ranges() {
        // Every BMP code point is in the table (so none falls back to a
        // search), and nothing above it is.
        let leaves = (BMP_CLASSES.len() - STAGE1_BYTES) / LEAF;
        assert_eq!(BMP_CLASSES.len(), STAGE1_BYTES + LEAF * leaves);
        assert!(BMP_CLASSES[..STAGE1_BYTES].chunks(2).all(|pair| usize::from(u16::from_le_bytes([pair[0], pair[1]])) < leaves));
        assert!((0..=0xFFFF).all(|code| bmp_classes(code).is_some()));
        assert_eq!(bmp_classes(0x10000), None);
        let classes = [(WORD_BIT, pyunicode::WORD), (SPACE_BIT, pyunicode::SPACE), (DECIMAL_BIT, pyunicode::DECIMAL),
                       (DIGIT_BIT, pyunicode::DIGIT), (UNASSIGNED_BIT, pyunicode::UNASSIGNED)];
        for c in (0..=0xFFFF).filter_map(char::from_u32) {
            for (bit, table) in classes {
                assert_eq!(in_class(bit, table, c), in_ranges(table, c), "{c:?} class {bit}");
            }
        }
        assert!(in_class(WORD_BIT, pyunicode::WORD, '发') && !in_class(WORD_BIT, pyunicode::WORD, '，'));
        for c in (0..=0xFFFF).filter_map(char::from_u32) {
            assert_eq!(is_nfkc_boundary(c), nfkc_boundary::is_nfkc_boundary(c), "{c:?}");
        }
        assert!(is_nfkc_boundary('发') && !is_nfkc_boundary('\u{ff21}') && !is_nfkc_boundary('\u{301}'));
    }

    #[test]
    fn ascii_is_lowered_only() {
        assert_eq!(normalise("FREE Money", None), "free money");
    }

    #[test]
    fn nfkc_and_casefold() {
        assert_eq!(normalise("ＦＲＥＥ Straße", None), "free strasse");
        assert_eq!(normalise("㊣", None), "正");
    }

    #[test]
    fn expansions_past_the_budget_are_case_folded_only() {
        let mut left = 3;
        assert_eq!(normalise("\u{fdfa}\u{fdfa}", Some(&mut left)).chars().count(), 36);
        assert_eq!(left, 1);
        assert_eq!(normalise("\u{fdfa}\u{fdfa}", Some(&mut left)), "\u{fdfa}\u{fdfa}");
        assert_eq!(left, 0);
    }

    #[test]
    fn long_mark_runs_are_cut() {
        let text: String = std::iter::once('a').chain(std::iter::repeat_n('\u{301}', 100)).collect();
        let safe = stream_safe(&text);
        assert_eq!(safe.chars().filter(|&c| c == GRAPHEME_JOINER).count(), 3);
        let _ = normalise(&text, None);
    }

    #[test]
    fn characters_unassigned_in_unicode_14_are_kept() {
        // U+1E030 MODIFIER LETTER CYRILLIC SMALL A (Unicode 15) has a compatibility decomposition.
        assert_eq!(nfkc("x\u{1e030}y"), "x\u{1e030}y");
    }

    fn whole_nfkc(text: &str) -> String {
        text.nfkc().collect()
    }

    #[test]
    fn nfkc_by_pieces_is_nfkc_of_the_whole() {
        // Every character between neighbours that compose, reorder or
        // decompose with it: starters, marks of several classes, Hangul
        // jamo (compatibility jamo compose after NFKC), a no-break space.
        let neighbours = ["a", "e", "\u{301}", "\u{323}", "\u{1100}", "\u{1161}", "\u{11a8}", "\u{314f}",
                          "\u{b47}", "\u{b3e}", "\u{a0}", "\u{3099}", "\u{ac00}"];
        for code in 0x80..0x3_0000u32 {
            let Some(c) = char::from_u32(code) else { continue };
            if is_unassigned(c) {
                continue;
            }
            // Two of the pairs of neighbours for each character, in turn.
            for turn in 0..2 {
                let index = (code as usize * 2 + turn) % neighbours.len();
                let before = neighbours[index];
                let after = neighbours[(index + code as usize / 3) % neighbours.len()];
                let text = format!("{before}{c}{after}{c}");
                assert_eq!(nfkc(&text), whole_nfkc(&text), "{code:x} between {before:?} and {after:?}");
            }
        }
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let alphabet: Vec<char> = "aeE \u{301}\u{300}\u{327}\u{323}\u{a0}\u{2026}\u{fb01}\u{ff26}\u{32a3}\u{344}\u{f73}\u{212b}\u{958}\u{1e0a}\u{1100}\u{1161}\u{11a8}\u{3131}\u{314f}\u{ac00}\u{b47}\u{b3e}\u{e9}\u{2019}"
            .chars().collect();
        for _ in 0..20_000 {
            let mut text = String::new();
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mut bits = state;
            for _ in 0..(bits % 9) {
                bits /= 9;
                text.push(alphabet[(bits % alphabet.len() as u64) as usize]);
                bits /= alphabet.len() as u64;
                if bits == 0 {
                    break;
                }
            }
            assert_eq!(nfkc(&text), whole_nfkc(&text), "{text:?}");
        }
    }

    #[test]
    fn python_classes() {
        assert!(is_word('_') && is_word('é') && is_word('²') && !is_word('\u{301}'));
        assert!(is_space('\x1c') && !is_space('\u{200b}'));
        assert_eq!(casefold("ß"), "ss");
        assert_eq!(lower("İ"), "i\u{307}");
        assert_eq!(splitlines("a\r\nb\nc"), vec!["a", "b", "c"]);
    }
}
