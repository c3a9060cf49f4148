//! Runs of Han characters → words (jieba-rs: jieba's dictionary and HMM).
//!
//! jieba-rs cuts as jieba does (precise mode with HMM), but building its
//! whole dictionary (`Jieba::new()`) costs 300 ms of CPU in a release build,
//! far more than one Chinese message should.  A message needs a sliver of
//! it: every dictionary lookup of a cut is for a substring of the run being
//! cut, so each is one of the run's characters or a word that starts with
//! one of its adjacent pairs.  So the dictionary is compiled in as sorted
//! text (core/data/jieba_dict.txt, from jieba's own dict.txt by
//! tools/zh_core_tables.py) and, before a run is cut, the entries for its
//! new characters and pairs are found by binary search in that text (no
//! index is built: nothing of the dictionary is read but what a lookup
//! touches) and added to one
//! process-wide `Jieba` that starts empty.  A filler entry no run can look
//! up keeps the dictionary's total frequency at the whole dictionary's, so
//! every word's probability, and so every cut, is the whole dictionary's.
//! A process that segments in bulk ends up holding the whole dictionary,
//! added as it went.

use ahash::{AHashMap as HashMap, AHashSet as HashSet};
use std::sync::{Mutex, OnceLock};

use jieba_rs::Jieba;

use super::sorted_lines::SortedLines;

// Spam repeats itself: 61 % of ccert_zh's Han text is in runs seen before.
// Remembering the last 16,384 runs catches 55 % (4,096: 45 %, 65,536: 61 %),
// so in bulk over half of the runs are not segmented again.  Runs over 64
// characters (0.4 % of the text) are not kept, so hostile
// mail cannot fill the cache with megabyte strings.
pub const CACHED_RUN_LENGTH: usize = 64;
pub const RUN_CACHE_SIZE: usize = 16384;
/// Runs longer than this are segmented in pieces (see `segment`).
pub const MAX_RUN: usize = 256;
pub const PIECE: usize = CACHED_RUN_LENGTH;

/// jieba's dictionary: a header of `# key: value` lines, then `word freq`
/// lines sorted by the word's UTF-8 bytes.  Compiled in, so nothing is read
/// at run time; its entry count and CRC-32 are checked by the unit tests.
const DICT: &str = include_str!("../../data/jieba_dict.txt");

/// A word no run can look up (jieba-rs cuts only blocks of CJK, ASCII
/// letters, digits and `+#&._%-`), whose frequency makes up the part of
/// the total not loaded yet.
const FILLER: &str = "\u{0}";

/// Split a run of Han characters into words (jieba's precise mode with HMM).
///
/// jieba's time on one run grows with the square of its longest stretch of
/// characters that are not dictionary words (its HMM copies the best path so
/// far at every character): 发 repeated eight times as often takes some
/// seventy times as long.  So a run over MAX_RUN characters is cut into
/// pieces of PIECE characters, each segmented alone (and remembered, as
/// short runs are): every character is still segmented, at a bounded cost
/// each, and a word that straddles a cut comes out as two.  The longest run
/// in the shared corpora is 98 characters (Chinese puts punctuation, which
/// ends a run, every few words), so real mail is segmented whole.
pub fn segment(run: &str) -> Vec<String> {
    let length = run.chars().count();
    if length <= CACHED_RUN_LENGTH {
        return cut_cached(run);
    }
    if length <= MAX_RUN {
        return with_state(|state| state.cut(run));
    }
    let mut out = Vec::new();
    let mut rest = run;
    while !rest.is_empty() {
        let end = rest.char_indices().nth(PIECE).map_or(rest.len(), |(index, _)| index);
        out.extend(cut_cached(&rest[..end]));
        rest = &rest[end..];
    }
    out
}

fn cut_cached(run: &str) -> Vec<String> {
    with_state(|state| {
        if let Some(words) = state.cache.get(run) {
            return words.clone();
        }
        let words = state.cut(run);
        state.cache.insert(run, &words);
        words
    })
}

fn with_state<T>(f: impl FnOnce(&mut State) -> T) -> T {
    static STATE: OnceLock<Mutex<State>> = OnceLock::new();
    let state = STATE.get_or_init(|| Mutex::new(State::new()));
    // A panic while the lock was held leaves entries that passed their
    // checks: the state is still right, so a poisoned lock is taken over.
    let mut guard = state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    f(&mut guard)
}

/// jieba cuts only runs of U+4E00..U+9FD5 with its dictionary and HMM; any
/// other character of a Han run (Extension A, U+9FD6.., compatibility
/// ideographs) comes out alone.  jieba-rs counts more characters as Han
/// (the whole block to U+9FFF and the extensions), so they are split off
/// first, as jieba does.
fn jieba_rs_only_han(c: char) -> bool {
    matches!(c,
        '\u{9FD6}'..='\u{9FFF}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{2A6DF}'
        | '\u{2A700}'..='\u{2EBEF}'
        | '\u{2F800}'..='\u{2FA1F}')
}

struct State {
    dict: Dictionary,
    jieba: Jieba,
    chars: HashSet<char>,
    /// Pairs whose words are all loaded, each the first time it is met.
    /// Loading only the words that start where a pair was met, and the rest
    /// at its second meeting, searched the dictionary twice a pair: `classify
    /// -j 1` of ccert_zh's 7,615 messages took 5 % longer so (3.13 against
    /// 2.98 s), and a cold classify of its median test message no less time
    /// (27.4 ms either way; 1.2 ms less for 30 KB of Chinese text).  What
    /// mail can make a process load is bounded all the same: a new pair adds
    /// at most 472 words (中国's, the most under one pair), and a process
    /// adds the dictionary's 349,045 at most once.
    pairs: HashSet<(char, char)>,
    /// Sum of the frequencies loaded so far (the filler's not counted).
    loaded: usize,
    cache: RunCache,
}

impl State {
    fn new() -> State {
        let dict = Dictionary::compiled();
        let mut jieba = Jieba::empty();
        jieba.add_word(FILLER, Some(dict.total), None);
        State {
            dict,
            jieba,
            chars: HashSet::new(),
            pairs: HashSet::new(),
            loaded: 0,
            cache: RunCache::default(),
        }
    }

    fn cut(&mut self, run: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut start = 0;
        for (index, c) in run.char_indices() {
            if jieba_rs_only_han(c) {
                self.cut_piece(&run[start..index], &mut out);
                out.push(c.to_string());
                start = index + c.len_utf8();
            }
        }
        self.cut_piece(&run[start..], &mut out);
        out
    }

    fn cut_piece(&mut self, piece: &str, out: &mut Vec<String>) {
        if piece.is_empty() {
            return;
        }
        self.load_for(piece);
        out.extend(self.jieba.cut(piece, true).into_iter().map(|token| token.word.to_string()));
    }

    /// Adds the entries a cut of `piece` can look up: its characters, and
    /// the words under each of its adjacent pairs (every look-up of a cut
    /// is for a piece of the text it cuts).
    fn load_for(&mut self, piece: &str) {
        let before = self.loaded;
        let mut previous: Option<(usize, char)> = None;
        for (index, c) in piece.char_indices() {
            if self.chars.insert(c) {
                let mut buffer = [0u8; 4];
                if let Some(freq) = self.dict.character(c) {
                    self.jieba.add_word(c.encode_utf8(&mut buffer), Some(freq), None);
                    self.loaded += freq;
                }
            }
            if let Some((start, first)) = previous {
                let pair = (first, c);
                if self.pairs.insert(pair) {
                    for (word, freq) in self.dict.words_under(&piece[start..index + c.len_utf8()]) {
                        self.jieba.add_word(word, Some(freq), None);
                        self.loaded += freq;
                    }
                }
            }
            previous = Some((index, c));
        }
        if self.loaded != before {
            self.jieba.add_word(FILLER, Some(self.dict.total.saturating_sub(self.loaded)), None);
        }
    }
}

/// The compiled-in dictionary, searched where it lies (no index of its
/// lines is built: a scan of its 4 MB for them would be 1.5 ms of a
/// process's first Chinese message), through the index of its first characters
/// build.rs makes (build_tables/jieba_index.rs).
struct Dictionary {
    lines: SortedLines,
    total: usize,
}

/// (character, start of its first line) per first character, little-endian u32s.
static FIRST_CHARS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/jieba_first_chars.bin"));

fn first_char_entry(index: usize) -> Option<(u32, usize)> {
    match FIRST_CHARS.get(index * 8..index * 8 + 8) {
        Some(&[a, b, c, d, e, f, g, h]) => {
            Some((u32::from_le_bytes([a, b, c, d]), u32::from_le_bytes([e, f, g, h]) as usize))
        }
        _ => None,
    }
}

impl Dictionary {
    fn compiled() -> Dictionary {
        let (header, body) = split_header(DICT);
        let total = header.get("total").and_then(|value| value.parse().ok()).unwrap_or(0);
        Dictionary { lines: SortedLines::new(body, b' '), total }
    }

    /// The lines of the words that start with `c`, [start, end): empty where none does.
    fn lines_of(&self, c: char) -> (usize, usize) {
        let (mut low, mut high) = (0, FIRST_CHARS.len() / 8);
        while low < high {
            let middle = low + (high - low) / 2;
            let Some((first, start)) = first_char_entry(middle) else { break };
            match first.cmp(&(c as u32)) {
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Greater => high = middle,
                std::cmp::Ordering::Equal => {
                    let end = first_char_entry(middle + 1).map_or(self.lines.end(), |(_, next)| next);
                    return (start, end);
                }
            }
        }
        (0, 0)
    }

    /// The frequency of the word that is `c` alone.
    fn character(&self, c: char) -> Option<usize> {
        let (start, end) = self.lines_of(c);
        let (word, freq) = self.lines.entry(start).filter(|_| start < end)?;
        let mut buffer = [0u8; 4];
        (word == c.encode_utf8(&mut buffer)).then_some(())?;
        freq.parse().ok()
    }

    /// (word, frequency) of the words that start with `prefix`, in order.
    fn words_under<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = (&'static str, usize)> + 'a {
        let (start, end) = prefix.chars().next().map_or((0, 0), |first| self.lines_of(first));
        let mut line = self.lines.lower_bound_in(prefix.as_bytes(), start, end);
        std::iter::from_fn(move || {
            let (word, freq) = self.lines.entry(line).filter(|(word, _)| word.starts_with(prefix))?;
            let found = (word, freq.parse().ok()?);
            line = self.lines.next_line(line);
            Some(found)
        })
    }
}

/// `# key: value` lines at the top of `text`, and the rest.
pub(crate) fn split_header(text: &str) -> (HashMap<&str, &str>, &str) {
    let mut header = HashMap::new();
    let mut rest = text;
    while rest.starts_with('#') {
        let end = rest.find('\n').map_or(rest.len(), |index| index + 1);
        if let Some((key, value)) = rest[1..end].trim().split_once(':') {
            header.insert(key.trim(), value.trim());
        }
        rest = &rest[end..];
    }
    (header, rest)
}

/// The last RUN_CACHE_SIZE or so runs cut, in two generations: a run found
/// in the older one moves to the newer; when the newer is full, the older
/// is dropped.  Bounded, and a run in use stays.
#[derive(Default)]
struct RunCache {
    newer: HashMap<String, Vec<String>>,
    older: HashMap<String, Vec<String>>,
}

impl RunCache {
    fn get(&mut self, run: &str) -> Option<&Vec<String>> {
        if !self.newer.contains_key(run) {
            let words = self.older.remove(run)?;
            self.insert(run, &words);
        }
        self.newer.get(run)
    }

    fn insert(&mut self, run: &str, words: &[String]) {
        if self.newer.len() >= RUN_CACHE_SIZE / 2 {
            self.older = std::mem::take(&mut self.newer);
        }
        self.newer.insert(run.to_string(), words.to_vec());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(text: &str) -> Vec<String> {
        segment(text)
    }

    #[test]
    fn dictionary_is_whole_and_sorted() {
        let (header, body) = split_header(DICT);
        assert_eq!(format!("{:08x}", crc32fast::hash(body.as_bytes())), header["crc32"]);
        let dict = Dictionary::compiled();
        let (mut sum, mut entries, mut start) = (0, 0, 0);
        let mut previous: Option<&str> = None;
        for line in dict.lines.lines() {
            let (word, freq) = line.split_once(' ').expect("a word and a frequency");
            let freq: usize = freq.parse().expect("a frequency");
            sum += freq;
            entries += 1;
            if let Some(previous) = previous {
                assert!(previous.as_bytes() < word.as_bytes(), "not sorted at {word}");
            }
            // The index of first characters holds every line.
            let (first, end) = dict.lines_of(word.chars().next().expect("a word"));
            assert!(first <= start && start < end, "{word} outside its first character's lines");
            previous = Some(word);
            start += line.len() + 1;
        }
        assert_eq!(entries.to_string(), header["entries"]);
        // The total counts a word listed twice in jieba's file twice, as jieba does.
        assert!(sum <= dict.total && dict.total - sum < 100);
        assert_eq!(dict.character('中'), Some(243191));
        assert_eq!(dict.character('\u{9fff}'), None);
        assert_eq!(dict.lines_of('\u{10ffff}'), (0, 0));
        for prefix in ["中国", "一一", "发票", "\u{4e00}\u{9fff}", "A", "\u{10ffff}"] {
            let everywhere: Vec<(&str, usize)> = dict.lines.under(prefix)
                .map(|(word, freq)| (word, freq.parse().expect("a frequency"))).collect();
            let found: Vec<(&str, usize)> = dict.words_under(prefix).collect();
            assert_eq!(found, everywhere, "{prefix}");
        }
        let under: Vec<_> = dict.words_under("中国").collect();
        assert!(under.contains(&("中国人民银行", 230)) && under.iter().all(|(word, _)| word.starts_with("中国")));
    }

    #[test]
    fn cuts_as_jieba() {
        assert_eq!(cut("本公司长期代开各地区增值税专用发票普通发票点数优惠欢迎来电咨询"),
                   ["本", "公司", "长期", "代开", "各", "地区", "增值税", "专用发票", "普通发票", "点数", "优惠",
                    "欢迎", "来电", "咨询"]);
        assert_eq!(cut("马上就要过年了小明和小红去北京天安门广场看升旗"),
                   ["马上", "就要", "过年", "了", "小明", "和小红", "去", "北京天安门广场", "看", "升旗"]);
        assert_eq!(cut("我们在2024年办理ABC发票，请联系QQ"),
                   ["我们", "在", "2024", "年", "办理", "ABC", "发票", "，", "请", "联系", "QQ"]);
        assert_eq!(cut("\u{9ff0}\u{9ff1}中文"), ["\u{9ff0}", "\u{9ff1}", "中文"]);
        assert_eq!(cut("㐀中国人民"), ["㐀", "中国", "人民"]);
        assert!(cut("").is_empty());
    }

    #[test]
    fn the_filler_is_never_a_word() {
        // NUL is what keeps the total: jieba-rs never looks it up, and it
        // comes out alone as jieba gives any character outside its blocks.
        assert_eq!(cut("\u{0}中国\u{0}\u{0}"), ["\u{0}", "中国", "\u{0}", "\u{0}"]);
        assert_eq!(cut("中\u{10FFFF}\u{2FA1D}国"), ["中", "\u{10FFFF}", "\u{2FA1D}", "国"]);
    }

    #[test]
    fn long_runs_are_cut_in_pieces() {
        let run = "发".repeat(10 * MAX_RUN + 3);
        let words = segment(&run);
        assert_eq!(words.concat(), run);
        let piece = "发".repeat(PIECE);
        assert!(words.iter().all(|word| piece.contains(word.as_str())));
        let run = "欢迎来电咨询正规发票".repeat(300);
        assert_eq!(segment(&run).concat(), run);
    }

    #[test]
    fn cache_stays_bounded() {
        let mut cache = RunCache::default();
        for index in 0..3 * RUN_CACHE_SIZE {
            cache.insert(&index.to_string(), &[]);
        }
        assert!(cache.newer.len() + cache.older.len() <= RUN_CACHE_SIZE);
        assert!(cache.get(&(3 * RUN_CACHE_SIZE - 1).to_string()).is_some());
    }

    /// A fresh State, loading as it goes, cuts as jieba-rs with the whole
    /// dictionary does: runs made of dictionary words and stray characters,
    /// so that pairs are met for the first time, again, and across words.
    #[test]
    fn loading_as_it_goes_cuts_as_the_whole_dictionary() {
        let dict = Dictionary::compiled();
        let mut whole = Jieba::empty();
        let mut sum = 0;
        let words: Vec<&str> = dict.lines.lines().map(|line| {
            let (word, freq) = line.split_once(' ').expect("a word and a frequency");
            let freq: usize = freq.parse().expect("a frequency");
            whole.add_word(word, Some(freq), None);
            sum += freq;
            word
        }).collect();
        whole.add_word(FILLER, Some(dict.total - sum), None);
        let han: Vec<&str> = words.iter().copied().filter(|word| word.chars().all(|c| ('\u{4e00}'..='\u{9fd5}').contains(&c))).collect();
        let mut state = State::new();
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |bound: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % bound as u64) as usize
        };
        for _ in 0..3000 {
            let mut run = String::new();
            for _ in 0..1 + next(8) {
                if next(5) == 0 {
                    run.push(char::from_u32(0x4e00 + next(0x9fd5 - 0x4e00) as u32).expect("a Han character"));
                } else {
                    run.push_str(han[next(han.len())]);
                }
            }
            let expected: Vec<&str> = whole.cut(&run, true).into_iter().map(|token| token.word).collect();
            assert_eq!(state.cut(&run), expected, "{run}");
        }
    }
}
