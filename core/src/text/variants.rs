//! Variant folding: Chinese written in forms that look or read like the
//! plain ones (Traditional characters, variants, look-alikes: 涐司岢办理正規髮票,
//! 增値税) back to plain Simplified text (我司可办理正规发票, 增值税), so that a
//! disguised word scores like the word it imitates.
//!
//! Two steps, after the tokenizer's NFKC (which already folds full-width
//! letters, enclosed and compatibility ideographs and Kangxi radicals: ㊣ → 正):
//!
//! 1. a table of variant and look-alike characters, spamnb/data/variants.txt,
//!    derived from Unicode's Unihan variant data and OpenCC's variant
//!    dictionaries by tools/variants_table.py (sources, licences and
//!    selection rules there and in the file's header), plus the short hand
//!    list below;
//! 2. OpenCC's t2s, Traditional to Simplified with its phrase tables
//!    (core/data/opencc_t2s.txt, OpenCC 1.4.2's own dictionaries dumped by
//!    tools/zh_core_tables.py), applied as OpenCC applies them: its
//!    normalisation dictionary, then its conversion group, each by maximum
//!    forward match.  A table of characters alone would not do: 乾 → 干, but
//!    乾隆 stays.
//!
//! Both tables are compiled in.  The variant table is read into a map at
//! the first Han run (1,400 entries); t2s's 6,500 are looked up where they
//! lie in its text, sorted by key (its order and checksum checked at the
//! first Han run, no map built).  English mail reads neither.

use ahash::AHashMap as HashMap;
use std::sync::{Mutex, OnceLock};

use super::chinese::split_header;
use super::sorted_lines::SortedLines;

/// The variant table, compiled in from the file the Python reads.
const TABLE: &str = include_str!("../../../spamnb/data/variants.txt");
/// OpenCC's t2s dictionaries (see tools/zh_core_tables.py).
const T2S: &str = include_str!("../../data/opencc_t2s.txt");

/// Spam forms that no source covers: real characters of their own (mostly a
/// radical added to a common character) that Unicode does not call variants
/// of the character they imitate.  Each is rare in plain Simplified mail;
/// folding changes a real word only where the rare character was meant.
pub const HAND: &[(char, char)] = &[
    ('涐', '我'), // 氵+我; a river name (涐水), never in ordinary mail
    ('硪', '我'), // 石+我; a builder's rammer (石硪)
    ('莪', '我'), // 艹+我; a herb (莪术), a poem title (蓼莪)
    ('岢', '可'), // 山+可; only the county 岢岚
    ('沵', '你'), // 氵+尔, read as 你
    ('妳', '你'), // the feminine "you" of Taiwanese writing: 你 in Simplified
    ('菂', '的'), // 艹+的; lotus seed, archaic
    ('嘚', '得'), // 口+得; an onomatopoeia (嘚嘚)
    ('芣', '不'), // 艹+不; a plant (芣苢)
    ('嶶', '微'), // 山+微, no meaning of its own in mail
    ('沩', '为'), // 氵+为; a river and mountain in Hunan (沩山)
    ('嚸', '点'), // 口+點: Unihan makes it a variant of a rare Extension G character, not of 点
    ('蕙', '惠'), // 艹+惠; an orchid (蕙兰) and a given name: spam writes 优蕙 for 优惠
];
// Left out on purpose: 薇 for 微 (the old hand list had it): a common
// character of names and flowers (蔷薇), which plain mail writes for itself.

/// {variant: plain character} from a table file's text and the hand list.
/// The text is checked as the Python checks the installed file: its entry
/// count and CRC-32 must match its header, every fold is one character to
/// one other, and no plain character is itself folded (one pass gives the
/// final form).  The error says why, in the Python's words.
pub fn load_table(text: &str) -> Result<HashMap<char, char>, String> {
    let (header, body) = split_header(text);
    let (Some(crc), Some(entries)) = (header.get("crc32"), header.get("entries")) else {
        return Err("no entries or crc32 line in its header".into());
    };
    if format!("{:08x}", crc32fast::hash(body.as_bytes())) != *crc {
        return Err("its checksum does not match".into());
    }
    let mut table = HashMap::new();
    for (index, line) in body.lines().enumerate() {
        let number = index + 1;
        let (plain, variants) = line.split_once('\t').unwrap_or((line, ""));
        let mut plain_chars = plain.chars();
        let (Some(plain), None) = (plain_chars.next(), plain_chars.next()) else {
            return Err(format!("entry line {number} is not a character, a tab and its variants"));
        };
        if variants.is_empty() {
            return Err(format!("entry line {number} is not a character, a tab and its variants"));
        }
        for variant in variants.chars() {
            if variant == plain || table.insert(variant, plain).is_some() {
                return Err(format!("entry line {number} folds {variant:?} twice"));
            }
        }
    }
    if table.len().to_string() != *entries {
        return Err(format!("{} entries, its header says {entries}", table.len()));
    }
    for &(variant, plain) in HAND {
        table.insert(variant, plain);
    }
    if table.values().any(|plain| table.contains_key(plain)) {
        return Err("a plain character is itself folded".into());
    }
    Ok(table)
}

fn table() -> &'static HashMap<char, char> {
    static LOADED: OnceLock<HashMap<char, char>> = OnceLock::new();
    // The table is compiled in: it can only be damaged in a broken build,
    // which `cargo test` (compiled_tables_pass_their_checks) refuses.  If one
    // got through anyway, the hand list still folds and t2s still runs.
    LOADED.get_or_init(|| load_table(TABLE).unwrap_or_else(|_| HAND.iter().copied().collect()))
}

/// One OpenCC dictionary: key → default value, looked up where it lies in
/// the compiled-in text, sorted by key.
struct OpenccDict {
    entries: SortedLines,
}

/// t2s's normalisation dictionary and its conversion group, in t2s.json's order.
struct T2s {
    normalisation: OpenccDict,
    group: Vec<OpenccDict>,
}

/// Which characters start a key: a bitmap of the code points below 0x40000
/// (made by build.rs: build_tables/t2s_first_chars.rs).  Most characters of
/// a Simplified text start none, and one bit read here spares them a search
/// of each dictionary.
static T2S_FIRST_CHARS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/t2s_first_chars.bin"));

fn starts_a_key(c: char) -> bool {
    let code = c as usize;
    T2S_FIRST_CHARS.get(code / 8).is_some_and(|byte| byte & (1 << (code % 8)) != 0)
}

/// The t2s text's dictionaries, in t2s.json's order: the lines under each
/// `= name` line.  Its checks (checksum, entry count, order, sections) are
/// the unit tests' (`check_t2s`): the text is compiled in.
fn read_t2s(text: &'static str) -> Result<T2s, String> {
    let (_, body) = split_header(text);
    // (name, start of its header line, start of its lines)
    let mut sections: Vec<(&str, usize, usize)> = Vec::new();
    let starts = body.starts_with("= ").then_some(0).into_iter()
        .chain(memchr::memmem::find_iter(body.as_bytes(), b"\n= ").map(|index| index + 1));
    for start in starts {
        let line = &body[start..];
        let end = line.find('\n').map_or(body.len(), |index| start + index + 1);
        sections.push((body[start + 2..end].trim_end(), start, end));
    }
    let names: Vec<&str> = sections.iter().map(|(name, ..)| *name).collect();
    if names != ["CJK_Compatibility_Ideographs", "TSPhrases", "TSCharactersExt", "TSCharacters"] {
        return Err(format!("unexpected sections {names:?}"));
    }
    let mut dicts = sections.iter().enumerate().map(|(index, &(_, _, first))| {
        let end = sections.get(index + 1).map_or(body.len(), |&(_, next, _)| next);
        OpenccDict { entries: SortedLines::new(&body[first..end], b'\t') }
    });
    let normalisation = dicts.next().ok_or("no normalisation")?;
    Ok(T2s { normalisation, group: dicts.collect() })
}

fn t2s() -> &'static T2s {
    static LOADED: OnceLock<T2s> = OnceLock::new();
    // Compiled in and checked by `cargo test`; a broken build converts nothing.
    LOADED.get_or_init(|| {
        read_t2s(T2S).unwrap_or_else(|_| T2s {
            normalisation: OpenccDict { entries: SortedLines::new("", b'\t') },
            group: Vec::new(),
        })
    })
}

/// A dictionary's keys that start with one character, longest first.
type KeysUnder = Vec<(&'static str, &'static str)>;

/// Characters whose keys each dictionary remembers (a Han run holds only
/// the 30,000 or so Han characters; this bounds what other text can fill).
pub const MAX_REMEMBERED_CHARACTERS: usize = 65536;

/// Per dictionary (t2s's normalisation, then its group), the keys under
/// each character met so far: found once by binary search in the text,
/// then by one hash look-up per dictionary and character.
fn with_keys_under<T>(f: impl FnOnce(&mut [HashMap<char, KeysUnder>]) -> T) -> T {
    static REMEMBERED: OnceLock<Mutex<Vec<HashMap<char, KeysUnder>>>> = OnceLock::new();
    let remembered = REMEMBERED.get_or_init(|| Mutex::new(vec![HashMap::new(); 1 + t2s().group.len()]));
    // What a panic left behind is keys already found whole: still right.
    let mut guard = remembered.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    f(&mut guard)
}

impl OpenccDict {
    fn keys_under(&self, c: char) -> KeysUnder {
        let mut buffer = [0u8; 4];
        let mut keys: KeysUnder = self.entries.under(c.encode_utf8(&mut buffer)).collect();
        keys.sort_by_key(|(key, _)| std::cmp::Reverse(key.len()));
        keys
    }
}

/// OpenCC's conversion of `text` by a group of dictionaries: at each place,
/// the first dictionary (in the group's order) with a key that starts
/// there gives its longest such key's value; where none has one, the
/// character stays.  Linear: a character that starts no key is passed by
/// one bit of T2S_FIRST_CHARS; any other costs one look-up per dictionary,
/// then a comparison per key under it (at most a handful).
fn convert(text: &str, group: &[&OpenccDict], remembered: &mut [HashMap<char, KeysUnder>]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let mut matched = None;
        if !starts_a_key(c) {
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        'dicts: for (dict, keys) in group.iter().zip(remembered.iter_mut()) {
            if keys.len() >= MAX_REMEMBERED_CHARACTERS && !keys.contains_key(&c) {
                keys.clear();
            }
            for &(key, value) in keys.entry(c).or_insert_with(|| dict.keys_under(c)).iter() {
                if rest.starts_with(key) {
                    matched = Some((key.len(), value));
                    break 'dicts;
                }
            }
        }
        match matched {
            Some((length, value)) => {
                out.push_str(value);
                rest = &rest[length..];
            }
            None => {
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out
}

/// Variants and look-alikes to their plain characters, then Traditional to
/// Simplified (OpenCC's t2s): 涐司岢办理正規髮票 → 我司可办理正规发票.
pub fn fold_variants(run: &str) -> String {
    let table = table();
    let folded: String = run.chars().map(|c| table.get(&c).copied().unwrap_or(c)).collect();
    let t2s = t2s();
    with_keys_under(|remembered| {
        let (normalisation, group) = remembered.split_at_mut(1);
        let normalised = convert(&folded, &[&t2s.normalisation], normalisation);
        let dicts: Vec<&OpenccDict> = t2s.group.iter().collect();
        convert(&normalised, &dicts, group)
    })
}

/// The tokenizer's Han runs (tokens._HAN_RUN): CJK radicals, Extension A,
/// the unified block and the compatibility ideographs.
fn is_han(c: char) -> bool {
    matches!(c, '\u{2E80}'..='\u{2EFF}' | '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}')
}

/// A word (or a `field:word` token) as the tokenizer would fold it, without
/// segmenting it: 發票 → 发票, subject:優蕙 → subject:优惠.
pub fn fold_word(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let mut rest = word;
    while let Some(start) = rest.find(is_han) {
        out.push_str(&rest[..start]);
        let run = &rest[start..];
        let end = run.find(|c: char| !is_han(c)).unwrap_or(run.len());
        out.push_str(&fold_variants(&run[..end]));
        rest = &run[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The t2s text's checks: its checksum and entry count, the sections
    /// t2s.json names, each a key, a tab and a value a line, sorted by key
    /// with no key twice (a lookup finds one line); its first characters.
    fn check_t2s(text: &str) -> Result<Vec<char>, String> {
        let (header, body) = split_header(text);
        if header.get("crc32").copied() != Some(&format!("{:08x}", crc32fast::hash(body.as_bytes()))) {
            return Err("its checksum does not match".into());
        }
        let (mut names, mut first_chars, mut count, mut last) = (Vec::new(), Vec::new(), 0, "");
        for line in body.lines() {
            if let Some(name) = line.strip_prefix("= ") {
                names.push(name);
                last = "";
                continue;
            }
            let (false, Some((key, _))) = (names.is_empty(), line.split_once('\t')) else {
                return Err(format!("a line is not a key, a tab and a value: {line:?}"));
            };
            if key.is_empty() || (!last.is_empty() && last.as_bytes() >= key.as_bytes()) {
                return Err(format!("{key:?} is out of order"));
            }
            last = key;
            first_chars.extend(key.chars().next());
            count += 1;
        }
        if header.get("entries").copied() != Some(&count.to_string()) {
            return Err(format!("{count} entries, its header says otherwise"));
        }
        if names != ["CJK_Compatibility_Ideographs", "TSPhrases", "TSCharactersExt", "TSCharacters"] {
            return Err(format!("unexpected sections {names:?}"));
        }
        first_chars.sort_unstable();
        first_chars.dedup();
        Ok(first_chars)
    }

    #[test]
    fn compiled_t2s_is_read_as_checked() {
        let first_chars = check_t2s(T2S).expect("the t2s table");
        let starting: Vec<char> = (0..=u32::from(char::MAX)).filter_map(char::from_u32).filter(|&c| starts_a_key(c)).collect();
        assert_eq!(starting, first_chars);
        assert!(!starts_a_key('发') && starts_a_key('發') && starts_a_key('乾'));
        let t2s = read_t2s(T2S).expect("its sections");
        let lines: usize = std::iter::once(&t2s.normalisation).chain(&t2s.group).map(|dict| dict.entries.lines().count()).sum();
        assert_eq!(lines.to_string(), split_header(T2S).0["entries"]);
        assert_eq!(t2s.group[0].entries.get("乾隆"), Some("乾隆"));
        assert!(read_t2s("# entries: 0\n= TSPhrases\n").is_err());
    }

    #[test]
    fn compiled_tables_pass_their_checks() {
        let table = load_table(TABLE).expect("the variant table");
        assert!(table.len() > 1000);
        check_t2s(T2S).expect("the t2s table");
    }

    #[test]
    fn t2s_out_of_order_is_refused() {
        // A lookup finds a key by binary search: a table out of order would
        // miss keys, so it is refused as a damaged one is.
        let (header, body) = T2S.split_at(T2S.find("\n= ").expect("a section") + 1);
        let mut lines: Vec<&str> = body.lines().collect();
        let at = lines.iter().position(|line| line.starts_with("= TSCharacters")).expect("TSCharacters") + 1;
        lines.swap(at, at + 1);
        let body = lines.iter().map(|line| format!("{line}\n")).collect::<String>();
        let header = header.replace(&format!("{:08x}", crc32fast::hash(split_header(T2S).1.as_bytes())),
                                    &format!("{:08x}", crc32fast::hash(body.as_bytes())));
        let damaged = format!("{header}{body}");
        assert!(check_t2s(&damaged).err().is_some_and(|why| why.contains("out of order")));
    }

    #[test]
    fn damaged_tables_are_refused() {
        let flipped = TABLE.replacen("\n值\t", "\n直\t", 1);
        assert!(load_table(&flipped).unwrap_err().contains("checksum"));
        assert!(load_table(&TABLE[..TABLE.len() / 2]).is_err());
        assert!(load_table("").unwrap_err().contains("no entries or crc32"));
        assert!(load_table(&TABLE.replace("# entries:", "# entrees:")).unwrap_err().contains("no entries or crc32"));
        let (head, _) = TABLE.rsplit_once("# crc32: ").expect("a crc32 line");
        let body = TABLE.split_once("# crc32: ").and_then(|(_, rest)| rest.split_once('\n')).expect("a body").1;
        let body = format!("{body}一\t値\n");
        let doubled = format!("{head}# crc32: {:08x}\n{body}", crc32fast::hash(body.as_bytes()));
        assert!(load_table(&doubled).unwrap_err().contains("twice"));
    }

    #[test]
    fn folds_what_spam_writes() {
        for (disguised, plain) in [("增値税", "增值税"), ("嚸数", "点数"), ("优蕙", "优惠"), ("涐司", "我司"),
                                   ("岢靠", "可靠"), ("髮票", "发票"), ("伱好", "你好"), ("優恵", "优惠"),
                                   ("弌次", "一次"), ("發票優惠", "发票优惠"),
                                   ("頭髮乾燥皇后著名於菟乾隆臺灣涐司岢办理規髮票",
                                    "头发干燥皇后著名於菟乾隆台湾我司可办理规发票"),
                                   ("", "")] {
            assert_eq!(fold_variants(disguised), plain, "{disguised}");
        }
        assert_eq!(fold_word("subject:優蕙"), "subject:优惠");
        assert_eq!(fold_word("free"), "free");
    }
}
