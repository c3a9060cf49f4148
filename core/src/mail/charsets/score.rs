//! How well a reading reads: the points of its characters by where they lie
//! in the codec's standard (`reading_score`), and of western text read as
//! Windows-1252 (`western_score`).

use ahash::{AHashMap as HashMap, AHashSet as HashSet};
use std::cell::RefCell;
use std::sync::OnceLock;

use super::dbcs::{reverse_lookup, Dbcs};
use super::decode_with;

// Points of one character in a reading.  A common character of the
// reading's language earns most, an ideograph of the standard's first
// (frequent) level or a symbol of its symbol rows (punctuation, full-width
// forms, box drawing) less, one of its second level less still.  Rare
// ideographs (the GBK and HKSCS extensions, which are what the bytes of
// another CJK encoding read as), half-width katakana (GB2312 read as
// Shift_JIS), private-use characters and C1 controls count against a
// reading.  The scale follows chardetng (Firefox's detector), in small
// integers.
const COMMON_POINTS: i64 = 4;
const LEVEL_1_POINTS: i64 = 2;
const SYMBOL_POINTS: i64 = 2;
const LEVEL_2_POINTS: i64 = 1;
const RARE_POINTS: i64 = -2;
const HALF_WIDTH_KANA_POINTS: i64 = -3;
const IMPOSSIBLE_POINTS: i64 = -8;
// Western text read as a CJK codec pairs each 8-bit byte with the letter
// after it ("won’t" in Shift_JIS is "won稚"); CJK text seldom writes a
// character against a Latin letter.
const LATIN_ADJACENT_POINTS: i64 = -2;

fn is_japanese(codec: &str) -> bool {
    codec == "cp932" || codec == "euc_jp"
}

/// A run of three or more of one non-ASCII character made two: a run of
/// one character is decoration (a line of box drawing, of full-width
/// spaces), so that a line of ─ read as 岸岸岸 by Big5 does not outweigh
/// the text around it.
fn collapse_repeats(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = None;
    let mut run = 0;
    for c in text.chars() {
        if Some(c) == last {
            run += 1;
        } else {
            last = Some(c);
            run = 1;
        }
        if c.is_ascii() || run <= 2 {
            out.push(c);
        }
    }
    out
}

fn is_cjk_letter(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30ff}' | '\u{3400}'..='\u{9fff}' | '\u{ac00}'..='\u{d7a3}')
}

/// How well `text`, decoded with `codec`, reads: the points of its
/// characters outside ASCII, less the CJK characters that touch an ASCII
/// letter.  Each distinct character is judged once.
pub fn reading_score(text: &str, codec: &str) -> i64 {
    let text = collapse_repeats(text);
    let mut counts: HashMap<char, i64> = HashMap::new();
    let mut adjacent = 0i64;
    let mut previous: Option<char> = None;
    for c in text.chars() {
        if !c.is_ascii() {
            *counts.entry(c).or_insert(0) += 1;
        }
        if let Some(p) = previous {
            // A character before a letter, and after one.
            if (is_cjk_letter(p) && c.is_ascii_alphabetic()) || (p.is_ascii_alphabetic() && is_cjk_letter(c)) {
                adjacent += 1;
            }
        }
        previous = Some(c);
    }
    let memo = judged_dbcs(codec);
    let points = |c: char| match memo {
        Some(dbcs) => remembered_points(c, codec, dbcs),
        None => char_points(c, codec),
    };
    LATIN_ADJACENT_POINTS * adjacent + counts.iter().map(|(&c, &n)| n * points(c)).sum::<i64>()
}

/// Characters a thread remembers before the memo below is emptied: a
/// message's sample holds at most 4,096 bytes, but hostile mail cycling
/// through every character would otherwise fill it with all of them.
pub const REMEMBERED_POINTS: usize = 1 << 16;

thread_local! {
    /// (character, the codec's Dbcs) → char_points.  Judging a character
    /// makes the codec's encoder and decodes its bytes back, for each of the
    /// five codecs a sniffed text is read as, and Chinese mail repeats the
    /// same few thousand characters: remembered, each is one hash look-up.
    static POINTS: RefCell<HashMap<(char, u8), i8>> = RefCell::new(HashMap::new());
}

/// char_points(c, codec), remembered by `dbcs`, the codec judged_dbcs names
/// (one Dbcs a codec, so the points are the same).
fn remembered_points(c: char, codec: &str, dbcs: Dbcs) -> i64 {
    let key = (c, dbcs as u8);
    if let Some(points) = POINTS.with(|memo| memo.borrow().get(&key).copied()) {
        return i64::from(points);
    }
    let points = char_points(c, codec);
    // Every char_points is one of the small constants above.
    let Ok(kept) = i8::try_from(points) else { return points };
    POINTS.with(|memo| {
        let mut memo = memo.borrow_mut();
        if memo.len() >= REMEMBERED_POINTS {
            memo.clear();
        }
        memo.insert(key, kept);
    });
    points
}

/// The double-byte codec whose standard judges a reading by `codec` (the
/// sniffer's five), or None.
fn judged_dbcs(codec: &str) -> Option<Dbcs> {
    match codec {
        "gb18030" => Some(Dbcs::Gb18030),
        "cp949" => Some(Dbcs::Cp949),
        "big5hkscs" => Some(Dbcs::Big5Hkscs),
        "cp932" => Some(Dbcs::Cp932),
        "euc_jp" => Some(Dbcs::EucJp),
        _ => None,
    }
}

/// Python's str.isalpha (general category L*), for the characters of the
/// CJK standards' symbol rows: Rust's Alphabetic also holds letter numbers
/// (Ⅻ, 〇) and circled letters (ⓐ), which Python's does not.
fn py_isalpha(c: char) -> bool {
    c.is_alphabetic()
        && !matches!(c, '\u{16ee}'..='\u{16f0}' | '\u{2160}'..='\u{2188}' | '\u{3007}' | '\u{3021}'..='\u{3029}'
            | '\u{3038}'..='\u{303a}' | '\u{24b6}'..='\u{24e9}')
}

#[derive(Clone, Copy, PartialEq)]
enum Row {
    Level1,
    Level2,
    Symbols,
    Extension,
}

fn char_points(c: char, codec: &str) -> i64 {
    let code = c as u32;
    if (0xFF61..=0xFF9F).contains(&code) {
        return HALF_WIDTH_KANA_POINTS;
    }
    if code < 0xA0 || (0xE000..=0xF8FF).contains(&code) || code == 0xFFFD {
        return IMPOSSIBLE_POINTS;
    }
    if (0x3041..=0x30FF).contains(&code) && is_japanese(codec) {
        return COMMON_POINTS; // kana
    }
    let Some(encoded) = encode_char(c, codec) else {
        return 0; // a character the codec reads but does not write
    };
    let row = row_of(&encoded, codec);
    if (0x4E00..=0x9FFF).contains(&code) {
        if codec == "cp949" {
            return 0; // Hanja: Korean mail is written in Hangul
        }
        if row == Row::Extension {
            return RARE_POINTS;
        }
        if is_japanese(codec) {
            // Japanese is written in kana and kanji together: its kana earn
            // a common character's points, its kanji a level less, which
            // keeps Chinese read as EUC-JP (邵筱昕 as 布黹蠖) from winning.
            return if row == Row::Level1 { LEVEL_2_POINTS } else { 0 };
        }
        if common_han().contains(&c) {
            return COMMON_POINTS;
        }
        return if row == Row::Level1 { LEVEL_1_POINTS } else { LEVEL_2_POINTS };
    }
    if (0xAC00..=0xD7A3).contains(&code) {
        // Hangul syllables
        if codec != "cp949" || row != Row::Level1 {
            return RARE_POINTS;
        }
        return if common_hangul().contains(&c) { COMMON_POINTS } else { LEVEL_1_POINTS };
    }
    if row == Row::Symbols {
        // Greek, Cyrillic and kana rows of a Chinese or Korean standard are
        // letters seldom used in its language.
        return if py_isalpha(c) { LEVEL_2_POINTS } else { SYMBOL_POINTS };
    }
    if (0x3400..=0x4DBF).contains(&code) || (0xF900..=0xFAFF).contains(&code) {
        return RARE_POINTS; // CJK extension A, compatibility ideographs
    }
    0
}

/// The bytes Python's `codec` writes `c` as (their length and the first
/// two are what matter), or None when it cannot write it.
fn encode_char(c: char, codec: &str) -> Option<Vec<u8>> {
    let dbcs = judged_dbcs(codec)?;
    if dbcs == Dbcs::Cp932 {
        // Python's CP932 writes these, though it reads their bytes as the full-width forms.
        let written: &[u8] = match c {
            '\u{a2}' => b"\x81\x91",
            '\u{a3}' => b"\x81\x92",
            '\u{ac}' => b"\x81\xca",
            '\u{2016}' => b"\x81\x61",
            '\u{2212}' => b"\x81\x7c",
            '\u{301c}' => b"\x81\x60",
            _ => b"",
        };
        if !written.is_empty() {
            return Some(written.to_vec());
        }
    }
    if dbcs == Dbcs::Big5Hkscs {
        // Python's Big5-HKSCS writes these in ETEN's box drawing row (F9), WHATWG's in the symbol rows.
        let written: &[u8] = match c {
            '\u{256d}' => b"\xf9\xfa",
            '\u{256e}' => b"\xf9\xfb",
            '\u{256f}' => b"\xf9\xfd",
            '\u{2570}' => b"\xf9\xfc",
            _ => b"",
        };
        if !written.is_empty() {
            return Some(written.to_vec());
        }
    }
    let mut buf = [0u8; 4];
    let text = c.encode_utf8(&mut buf);
    let mut encoder = dbcs.encoding().new_encoder();
    let mut out = [0u8; 8];
    let (result, _, written) = encoder.encode_from_utf8_without_replacement(text, &mut out, true);
    if matches!(result, encoding_rs::EncoderResult::InputEmpty) && written > 0 {
        let bytes = &out[..written];
        if dbcs.decode(bytes, false, false).is_some_and(|back| back == *text) {
            return Some(bytes.to_vec());
        }
    }
    // What WHATWG's encoders write otherwise or not at all (Big5's HKSCS
    // rows, EUC-JP's JIS X 0212, the cells corrected to Python's mapping).
    if let Some(bytes) = reverse_lookup(dbcs, c) {
        return Some(bytes);
    }
    // GB18030 writes every character, in four bytes when not in two.
    (dbcs == Dbcs::Gb18030).then(|| vec![0x81, 0x30, 0x81, 0x30])
}

/// Where a character lies in its standard: Symbols (the rows of
/// punctuation, forms and foreign letters), Level1 (the ideographs sorted
/// apart as the frequent ones: GB2312's 3,755, Big5's 5,401, JIS X 0208's
/// 2,965; for KS X 1001, its 2,350 Hangul syllables), Level2 (the other
/// ideographs of the standard; KS X 1001's Hanja), or Extension (what a
/// vendor added after: GBK, HKSCS, CP932's and CP949's extensions, JIS X
/// 0212).
fn row_of(encoded: &[u8], codec: &str) -> Row {
    let &[lead, trail] = encoded else { return Row::Extension };
    let euc = matches!(codec, "gb18030" | "euc_jp" | "cp949");
    if trail < 0xA1 && euc {
        // GBK's own symbol rows (╭╮╰╯, ═║╔╗, ↖↗) draw the art of Chinese mail.
        return if codec == "gb18030" && (0xA8..=0xA9).contains(&lead) { Row::Symbols } else { Row::Extension };
    }
    // Per codec: the lead bytes of the symbol rows, the first lead byte and
    // the last character of the first level, and the lead bytes of the
    // second level.
    let ((first_symbol, last_symbol), (first_level_1, last_level_1), (first_level_2, last_level_2)) = match codec {
        "gb18030" => ((0xA1, 0xA9), (0xB0, (0xD7, 0xFE)), (0xD8, 0xF7)),
        "euc_jp" => ((0xA1, 0xA8), (0xB0, (0xCF, 0xFE)), (0xD0, 0xF4)),
        "cp949" => ((0xA1, 0xAC), (0xB0, (0xC8, 0xFE)), (0xCA, 0xFD)),
        "big5hkscs" => ((0xA1, 0xA3), (0xA4, (0xC6, 0x7E)), (0xC9, 0xF9)),
        "cp932" => ((0x81, 0x84), (0x88, (0x98, 0x72)), (0x98, 0xEA)),
        _ => return Row::Extension,
    };
    if (first_symbol..=last_symbol).contains(&lead) {
        return Row::Symbols;
    }
    if first_level_1 <= lead && (lead, trail) <= last_level_1 {
        return Row::Level1;
    }
    if (first_level_2..=last_level_2).contains(&lead) {
        Row::Level2
    } else {
        Row::Extension
    }
}

const WESTERN_SYMBOLS: &str = "‘’“”–—•…€™©®°«»§£¥¢·´¡¿µ";
// Doubled in western text ("——", "’’"); "¡¡" is GB2312's full-width space.
const WESTERN_DOUBLED: &str = "‘’“”–—•…*°«»";

/// How well `data` reads as Windows-1252.  A letter or common symbol
/// (curly quotes, dashes, «») alone between ASCII earns a level-1
/// character's points, and so does a pair holding a letter (öß) or a
/// doubled dash or quote; three or more in a row, or a pair of other
/// symbols (¡¯, which is ’ in GB2312), are CJK bytes read as Latin
/// (ÎÒË¾¿É) and count against it, and so do the bytes Windows-1252 leaves
/// undefined.  The rarer symbols (‰ † ˆ ¤ ¬) earn nothing.
pub fn western_score(data: &[u8]) -> i64 {
    let decoded = decode_with(data, "cp1252", true, false).unwrap_or_default().replace('\u{a0}', " ");
    let text = collapse_repeats(&decoded);
    let mut score = 0;
    let mut run: Vec<char> = Vec::new();
    for c in text.chars().chain(std::iter::once('\0')) {
        if !c.is_ascii() {
            run.push(c);
            continue;
        }
        if run.is_empty() {
            continue;
        }
        let n = run.len() as i64;
        if run.len() >= 3
            || (run.len() == 2
                && !(run[0].is_alphabetic() || run[1].is_alphabetic() || (run[0] == run[1] && WESTERN_DOUBLED.contains(run[1]))))
        {
            score += RARE_POINTS * n;
        } else {
            for &c in &run {
                if c == '\u{fffd}' {
                    score += IMPOSSIBLE_POINTS;
                } else if (c.is_alphabetic() && !"ªºƒ".contains(c)) || WESTERN_SYMBOLS.contains(c) {
                    score += LEVEL_1_POINTS;
                }
            }
        }
        run.clear();
    }
    score
}

fn common_han() -> &'static HashSet<char> {
    static SET: OnceLock<HashSet<char>> = OnceLock::new();
    SET.get_or_init(|| COMMON_HAN.chars().collect())
}

fn common_hangul() -> &'static HashSet<char> {
    static SET: OnceLock<HashSet<char>> = OnceLock::new();
    SET.get_or_init(|| COMMON_HANGUL.chars().collect())
}

// Frequent characters of Chinese, Simplified and Traditional: the 500 most
// frequent in jieba's dictionary (counted over its words by their
// frequencies), the words of Chinese mail that list lacks (联系, 优惠,
// 欢迎...), and each in its Traditional forms (OpenCC s2t, s2tw, s2hk).
const COMMON_HAN: &str = concat!(
    "一是人了不在有大中国和为这上他个地年来我会以到时要出的生学说道民家子也成行下们于后就发自之对得主长可",
    "过天作分方用多你着部能市等业全里工公经本都而高政法面门动日进区事代那去心小同北定开产前其军还然起种所",
    "如现理机体表力好外与文当两实重新三么只山水关明从化平建又制南内西没此将员名手最东头者月间无安看见各城",
    "十相但已些正口通想度加第她合院物性战由位常点海意场武使次二向治因立数样身情入原问把路被并利石老教万知",
    "级量任江及应省资委务元美特期世湖回系比气汉总展电科金先声提品设或义王社很统处四首共马形己儿司太目基领",
    "队直计别女权话少流命至报米给打变果书清活几州华解议更称程今决张导术府才保交放管结师便走达族反再题色五",
    "京河接条规式县白它改风光运信受什组听布百济党指论强做取技黄神选记斯真却职号界件花类何眼兵传带空干农边",
    "据集联古广完质阳难增历史专官每住商即步认车台林必死游举线言皇土团收考求德叫近备研争非具李众连调感转笑",
    "革该持始英克士尔让拉思根格造较际亲单朝红型价校约器字段周亚深候则功属积快图火千准究往极育装许参半令吃",
    "观鱼精办像帝八复影告远群包整构料随划算象容示投势热值夫网望源息语股铁断派速怎需片爱律纪支早况病境证编",
    "谢免惠服迎优站费欢请址您國爲這個來會時學說們於後發對長過業裏經門動進區開產軍還種現機體與當兩實麼關從",
    "內沒將員東頭間無見戰點場數樣問並萬級應資務氣漢總電聲設義統處馬兒領隊計別權話報給變書幾華議稱決張導術",
    "結師達題條規縣風運組聽濟黨論強黃選記卻職號類傳帶幹農邊據聯廣質陽難歷專認車臺遊舉線團備爭衆連調轉該爾",
    "讓較際親單紅價約亞則屬積圖準極裝許參喫觀魚辦復遠羣構隨勢熱網語鐵斷愛紀況證編謝優費歡請為著裡眾説",
);

// Frequent Hangul syllables: particles, endings, the words of Korean mail
// (광고, 무료, 회원, 수신거부) and of the names in its From lines (surnames
// and common given names).  Chinese read as CP949 gives Hangul too, but
// rare syllables (广告 reads as 밤멩).
const COMMON_HANGUL: &str = concat!(
    "이다는의에을를하고가지서로기한리사대니자도있수정시아나인보전어해으주것스일상우들적부국게만제과와여요면안합",
    "성원비신장공경동소마라내중연무실문세구선현계방되습드트관위화개생회물행재결업용모분까알받거때또않했할된및그저",
    "더번님께립오본발처초품격판매광료입메확객감금액출벤쿠폰인특담청등록클릭험카은행최법림참당첨혜택",
    "김박강조윤임권황송류홍양손배백허남심노곽차진엄채천함변염추석설길표명반왕옥육맹탁편",
    "영준호희미숙철훈혜승태종순유민혁빈규욱환범웅래슬별솔",
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::charsets::SNIFFED_CODECS;

    /// The memo gives what judging each character afresh gives, for every
    /// sniffed codec, when it first judges a character and when it remembers
    /// it, and is emptied when full.
    #[test]
    fn remembered_points_are_the_points() {
        let texts = ["发票优惠，欢迎来电咨询 free", "頭髮乾燥 ──── 岸岸岸", "안녕하세요 ｱｲｳ カタカナ", "\u{e000}\u{fffd}é"];
        POINTS.with(|memo| memo.borrow_mut().clear());
        for round in 0..2 {
            for c in texts.iter().flat_map(|text| text.chars()) {
                for codec in SNIFFED_CODECS {
                    let dbcs = judged_dbcs(codec).expect("a sniffed codec");
                    assert_eq!(remembered_points(c, codec, dbcs), char_points(c, codec), "{c} {codec} round {round}");
                }
            }
        }
        // A reading scores the same judged afresh and remembered.
        for text in texts {
            for codec in SNIFFED_CODECS {
                POINTS.with(|memo| memo.borrow_mut().clear());
                let afresh = reading_score(text, codec);
                assert_eq!(reading_score(text, codec), afresh, "{text} {codec}");
            }
        }
        // Full at REMEMBERED_POINTS, and emptied by the next one.
        POINTS.with(|memo| memo.borrow_mut().clear());
        for (count, c) in ('\u{a0}'..=char::MAX).take(REMEMBERED_POINTS + 1).enumerate() {
            assert_eq!(remembered_points(c, "gb18030", Dbcs::Gb18030), char_points(c, "gb18030"));
            let held = POINTS.with(|memo| memo.borrow().len());
            assert_eq!(held, if count < REMEMBERED_POINTS { count + 1 } else { 1 }, "{count}");
        }
    }
}
