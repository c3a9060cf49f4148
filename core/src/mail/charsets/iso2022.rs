//! Python's ISO 2022 decoders (iso2022_jp and its kin, iso2022_kr).

use super::dbcs::{gb2312, jisx0208, jisx0212, Dbcs};
use super::replacement::bad;

/// The ISO 2022 codecs of Python, by the sets each may designate.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Iso2022 {
    Kr,    // KS X 1001, shifted in by SO
    Jp,    // JIS X 0208 and JIS X 0201 Roman (also for iso2022_jp_2004 and _3, less their JIS X 0213)
    Jp1,   // and JIS X 0212
    Jp2,   // and KS X 1001 and GB2312 (not its G2 sets, ISO-8859-1 and -7 after ESC N)
    JpExt, // iso2022_jp_ext: JIS X 0208, 0212, 0201 Roman and half-width katakana
}

#[derive(Clone, Copy, PartialEq)]
enum Set {
    Ascii,
    Roman,
    Katakana,
    Jis0208,
    Jis0212,
    Ksc,
    Gb2312,
}

impl Iso2022 {
    fn has(self, set: Set) -> bool {
        use Iso2022::*;
        match set {
            Set::Ascii => true,
            Set::Jis0208 | Set::Roman => self != Kr,
            Set::Katakana => self == JpExt,
            Set::Jis0212 => matches!(self, Jp1 | Jp2 | JpExt),
            Set::Ksc => matches!(self, Kr | Jp2),
            Set::Gb2312 => self == Jp2,
        }
    }
}

/// Python's ISO 2022 decoder.
///
/// iso2022_jp_ext: ESC ( B ASCII, ESC ( J JIS X 0201 Roman, ESC ( I
/// half-width katakana, ESC $ @ and ESC $ B JIS X 0208, ESC $ ( D JIS X
/// 0212; no shifts.  iso2022_kr: KS X 1001 designated (ESC $ ) C), SO and
/// SI shift to it and back, a line feed shifts back.  Control characters
/// pass in any set; a byte above 0x7F is a bad sequence; an escape sequence
/// of a set the codec lacks is a bad sequence of its length; ESC before a
/// byte that starts none passes through (with what follows, up to a final
/// byte A-Z or @).  A bad character in a two-byte set is a bad sequence of
/// both bytes.
pub(super) fn iso2022(data: &[u8], variant: Iso2022, replace: bool, cut: bool) -> Option<String> {
    let kr = variant == Iso2022::Kr;
    const MAX_ESCAPE: usize = 16;
    let is_final = |b: u8| b.is_ascii_uppercase() || b == b'@';
    let mut out = String::with_capacity(data.len());
    let (mut g0, mut g1, mut shifted) = (Set::Ascii, Set::Ascii, false);
    let mut through = false; // inside an escape sequence of no ISO 2022 set
    let mut i = 0;
    // Python's stream decoder holds at most 8 bytes of an incomplete
    // sequence; past that a cut text is read whole, so they are an error.
    const MAX_PENDING: usize = 8;
    macro_rules! incomplete {
        () => {{
            if !cut || data.len() - i > MAX_PENDING {
                bad(&mut out, replace)?;
            }
            break;
        }};
    }
    while i < data.len() {
        let b = data[i];
        if through {
            out.push(b as char); // as ISO-8859-1
            i += 1;
            through = !is_final(b);
            continue;
        }
        if b == 0x1B {
            let Some(&second) = data.get(i + 1) else { incomplete!() };
            if !matches!(second, b'(' | b')' | b'$' | b'.' | b'&') {
                out.push('\u{1b}');
                through = true;
                i += 1;
                continue;
            }
            // The length of the escape sequence: up to its final byte.
            let mut j = 1;
            let mut length = None;
            while j < MAX_ESCAPE {
                if i + j >= data.len() {
                    break;
                }
                if is_final(data[i + j]) {
                    length = Some(j + 1);
                    break;
                }
                // JIS X 0208-1990's announcer "& @" is skipped with the byte after it.
                let announcer = !kr && i + j + 1 < data.len() && data[i + j] == b'&' && data[i + j + 1] == b'@';
                j += if announcer { 3 } else { 1 };
            }
            let Some(length) = length else {
                if j < MAX_ESCAPE {
                    incomplete!()
                }
                bad(&mut out, replace)?; // unterminated escape sequence
                i += 1;
                continue;
            };
            let seq = &data[i..i + length];
            // (plane, set): G0 or G1, of the sets this codec has.
            let double = |mark: u8| match mark {
                b'@' | b'B' => Some(Set::Jis0208),
                b'D' => Some(Set::Jis0212),
                b'C' => Some(Set::Ksc),
                b'A' => Some(Set::Gb2312),
                _ => None,
            };
            let single = |mark: u8| match mark {
                b'B' => Some(Set::Ascii),
                b'J' => Some(Set::Roman),
                b'I' => Some(Set::Katakana),
                _ => None,
            };
            let designated = match *seq {
                [_, b'$', mark] => double(mark).map(|set| (0, set)),
                [_, b'$', b'(', mark] => double(mark).map(|set| (0, set)),
                [_, b'$', b')', mark] => double(mark).map(|set| (1, set)),
                [_, b'(', mark] => single(mark).map(|set| (0, set)),
                [_, b')', mark] => single(mark).map(|set| (1, set)),
                [_, _, _, 0x1B, b'$', b'B'] if !kr => Some((0, Set::Jis0208)), // ESC & @ ESC $ B
                _ => None,
            }
            .filter(|&(_, set)| variant.has(set));
            match designated {
                Some((0, set)) => g0 = set,
                Some((_, set)) => g1 = set,
                None => {
                    bad(&mut out, replace)?;
                    i += length;
                    continue;
                }
            }
            i += length;
            continue;
        }
        if kr && (b == 0x0E || b == 0x0F) {
            shifted = b == 0x0E;
            i += 1;
            continue;
        }
        if b == b'\n' {
            shifted = false;
        }
        let set = if shifted { g1 } else { g0 };
        if b < 0x20 || set == Set::Ascii {
            if b >= 0x80 {
                bad(&mut out, replace)?;
            } else {
                out.push(b as char);
            }
            i += 1;
            continue;
        }
        if b >= 0x80 {
            bad(&mut out, replace)?;
            i += 1;
            continue;
        }
        match set {
            Set::Roman => {
                out.push(match b {
                    0x5C => '\u{a5}',
                    0x7E => '\u{203e}',
                    _ => b as char,
                });
                i += 1;
            }
            Set::Katakana => {
                if (0x21..=0x5F).contains(&b) {
                    out.push(char::from_u32(0xFF40 + b as u32).unwrap_or('\u{fffd}'));
                } else {
                    bad(&mut out, replace)?;
                }
                i += 1;
            }
            _ => {
                let Some(&trail) = data.get(i + 1) else { incomplete!() };
                let read = if !(0x21..=0x7E).contains(&b) || !(0x21..=0x7E).contains(&trail) {
                    None
                } else if set == Set::Jis0208 {
                    jisx0208(b, trail)
                } else if set == Set::Jis0212 {
                    jisx0212(b | 0x80, trail | 0x80)
                } else if set == Set::Gb2312 {
                    gb2312(b, trail)
                } else {
                    // KS X 1001: the EUC-KR cell (CP949's extensions lie outside A1-FE × A1-FE).
                    Dbcs::Cp949.cell(b | 0x80, trail | 0x80).and_then(char::from_u32)
                };
                match read {
                    Some(c) => out.push(c),
                    None => bad(&mut out, replace)?,
                }
                i += 2;
            }
        }
    }
    Some(out)
}
