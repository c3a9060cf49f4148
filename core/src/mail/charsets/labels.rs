//! Charset labels → Python's codec names: our own aliases first, then
//! Python's (codecs.lookup's normalisation, its aliases and modules).

use crate::mail::charset_tables::{ALIASES, MODULES};

// GB2312 and GBK are subsets of GB18030, and senders label GBK text as GB2312
// all the time (characters such as 镕 or 喆 are outside GB2312), so every
// member of the family is read as GB18030.  Big5 likewise reads as Big5-HKSCS.
//
// "iso-2022-jp": ISO-2022-JP as mail clients read it (the WHATWG decoder):
// with the half-width katakana set (ESC ( I), which Python's iso2022_jp
// refuses.  71 trec06p spam use it; read strictly they failed, and their
// escape codes were scored as words ("$b"), where the email package and a
// client show Japanese.
static OWN_ALIASES: &[(&str, &str)] = &[
    ("gb2312", "gb18030"), ("gbk", "gb18030"), ("gb_2312-80", "gb18030"), ("euc-cn", "gb18030"),
    ("x-gbk", "gb18030"), ("cp936", "gb18030"), ("ms936", "gb18030"), ("chinese", "gb18030"),
    ("csgb2312", "gb18030"), ("x-euc-cn", "gb18030"), ("gb2312_charset", "gb18030"),
    ("big5", "big5hkscs"), ("x-big5", "big5hkscs"), ("cn-big5", "big5hkscs"),
    ("ks_c_5601-1987", "cp949"), ("euc-kr", "cp949"),
    ("iso-8859-1", "cp1252"), ("latin-1", "cp1252"), ("latin1", "cp1252"),
    ("us-ascii", "cp1252"), ("ascii", "cp1252"), ("ansi_x3.4-1968", "cp1252"),
    ("windows-1252", "cp1252"), ("default", ""), ("default_charset", ""), ("charset", ""),
    ("unknown-8bit", ""), ("x-unknown", ""), ("unknown", ""),
    ("iso-2022-jp", "iso2022_jp_ext"), ("csiso2022jp", "iso2022_jp_ext"), ("iso2022jp", "iso2022_jp_ext"),
];


/// Python's str.isspace (which, unlike White_Space, holds the separators 0x1C-0x1F).
fn py_isspace(c: char) -> bool {
    matches!(c, '\t'..='\r' | '\x1c'..='\x1f' | ' ' | '\u{85}' | '\u{a0}' | '\u{1680}' | '\u{2000}'..='\u{200a}'
        | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}')
}

/// encodings.normalize_encoding: runs of punctuation become one "_", non-ASCII
/// letters and digits are dropped.
fn normalize_encoding(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut punct = false;
    for c in name.chars() {
        if c.is_alphanumeric() || c == '.' {
            if punct && !out.is_empty() {
                out.push('_');
            }
            if c.is_ascii() {
                out.push(c);
            }
            punct = false;
        } else {
            punct = true;
        }
    }
    out
}

fn lookup(table: &[(&'static str, &'static str)], key: &str) -> Option<&'static str> {
    table.binary_search_by(|(k, _)| (*k).cmp(key)).ok().map(|i| table[i].1)
}

/// The Python codec to try for a charset label ("" when unknown or absent),
/// as `spamnb.mail.charsets.codec_for` names it.
pub fn codec_for(label: Option<&str>) -> &'static str {
    let Some(label) = label else { return "" };
    if label.is_empty() {
        return "";
    }
    let name = label.trim_matches(py_isspace).trim_matches(|c| c == '"' || c == '\'').to_lowercase();
    if let Some(codec) = OWN_ALIASES.iter().find(|(alias, _)| *alias == name).map(|(_, codec)| *codec) {
        return codec;
    }
    // codecs.lookup: a NUL in the name is a ValueError; then the encodings
    // package's search function (an alias, else the module of that name).
    // idna, punycode, rot13, base64... are codecs but not charsets: a header
    // naming one would make decoding raise instead of fall back (their
    // modules map to "").
    if name.contains('\0') {
        return "";
    }
    let normal = normalize_encoding(&name);
    let aliased = lookup(ALIASES, &normal).or_else(|| lookup(ALIASES, &normal.replace('.', "_")));
    for module in aliased.into_iter().chain(std::iter::once(normal.as_str())) {
        if module.is_empty() || module.contains('.') {
            continue;
        }
        if let Some(codec) = lookup(MODULES, module) {
            return codec;
        }
    }
    ""
}
