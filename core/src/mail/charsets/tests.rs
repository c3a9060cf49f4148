//! The charset decoders' tests: labels, Python's codec behaviours, sniffing, the compiled tables.

use super::dbcs::{jisx0212, reverse_lookup, Dbcs};
use super::*;
use crate::mail::charset_tables::MODULES;

#[test]
fn labels_read_as_python_reads_them() {
    assert_eq!(codec_for(None), "");
    assert_eq!(codec_for(Some(" 'GB2312' ")), "gb18030");
    assert_eq!(codec_for(Some("utf 8")), "utf-8");
    assert_eq!(codec_for(Some("u8")), "utf-8");
    assert_eq!(codec_for(Some("936")), "gbk");
    assert_eq!(codec_for(Some("euc_kr")), "euc_kr");
    assert_eq!(codec_for(Some("l1")), "iso8859-1");
    assert_eq!(codec_for(Some("iso-2022-jp")), "iso2022_jp_ext");
    assert_eq!(codec_for(Some("idna")), "");
    assert_eq!(codec_for(Some("base64")), "");
    assert_eq!(codec_for(Some("utf\0-8")), "");
    assert_eq!(codec_for(Some("utf.8")), "");
    assert_eq!(codec_for(Some("\u{1c}gbk")), "gb18030"); // Python's strip() takes the separators too
}

#[test]
fn windows_1252_leaves_its_five_bytes_undefined() {
    assert_eq!(decode_with(b"a\x80\x81", "cp1252", false, false), None);
    assert_eq!(decode_with(b"a\x80\x81", "cp1252", true, false).unwrap(), "a\u{20ac}\u{fffd}");
    assert_eq!(decode_text(b"\x81\x8d\x8f\x90\x9d", None, false), "\u{fffd}".repeat(5));
}

#[test]
fn a_bad_sequence_is_its_lead_byte_alone() {
    // GB18030: 0xDB then 0x2F is no character; the slash and 0xE2 0xB2 (獠) are read afresh.
    assert_eq!(decode_with(b"\xdb\x2f\xe2\xb2", "gb18030", true, false).unwrap(), "\u{fffd}/\u{7360}");
    // WHATWG's decoder would swallow a non-ASCII trail byte with the lead: Python reads it afresh.
    assert_eq!(decode_with(b"\xdb\xff\xb0\xa1", "gb18030", true, false).unwrap(), "\u{fffd}\u{fffd}\u{554a}");
    assert_eq!(decode_with(b"\xb0\xa1\xb0", "gb18030", true, false).unwrap(), "\u{554a}\u{fffd}");
    assert_eq!(decode_with(b"\xb0\xa1\xb0", "gb18030", true, true).unwrap(), "\u{554a}");
    assert_eq!(decode_with(b"\xb0\xa1\xb0", "gb18030", false, true).unwrap(), "\u{554a}");
    assert_eq!(decode_with(b"\xb0\xa1\xb0", "gb18030", false, false), None);
}

#[test]
fn iso_2022_jp_as_python_reads_it() {
    assert_eq!(decode_with(b"\x1b$B$3$s\x1b(B!", "iso2022_jp_ext", false, false).unwrap(), "こん!");
    // 〜 as JIS maps it; empty switches are no error; half-width katakana.
    assert_eq!(decode_with(b"\x1b$B!A\x1b(B\x1b$B\x1b(B\x1b(I12\x1b(B", "iso2022_jp_ext", false, false).unwrap(),
               "\u{301c}\u{ff71}\u{ff72}");
    assert_eq!(decode_with(b"\x1b$B$3$", "iso2022_jp_ext", false, true).unwrap(), "\u{3053}");
    assert_eq!(decode_with(b"\x1b$A", "iso2022_jp_ext", true, false).unwrap(), "\u{fffd}");
    assert_eq!(decode_text(b"\x1b$B$3$s\x1b(B", None, false), "こん");
}

#[test]
fn seven_bit_codecs() {
    assert_eq!(decode_with(b"~{<:Ky~}~~", "hz", false, false).unwrap(), "\u{5df1}\u{6240}~");
    assert_eq!(decode_with(b"+AGEAYgBj- 1+-1", "utf-7", false, false).unwrap(), "abc 1+1");
    assert_eq!(decode_with(b"\x1b$)C\x0e\x30\x21\x0fA", "iso2022_kr", false, false).unwrap(), "\u{ac00}A");
}

#[test]
fn garbage_never_panics_and_every_codec_is_tried() {
    let mut data: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
    data.extend_from_slice(b"\x1b$B\x1b(D\x1b$(D\x1bx+AAA~{");
    for (_, codec) in MODULES {
        for cut in [false, true] {
            let _ = decode_with(&data, codec, true, cut);
            let _ = decode_with(&data[..7], codec, false, cut);
        }
    }
    for label in [None, Some("utf-8"), Some("iso-2022-jp"), Some("hz"), Some("utf-7"), Some("utf-16")] {
        for end in [0, 1, 2, 3, 100, 2999, data.len()] {
            let _ = decode_text(&data[..end], label, false);
            let _ = decode_text(&data[..end], label, true);
        }
    }
}

#[test]
fn sniffing_reads_undeclared_cjk() {
    // 本公司 in GB2312; in Big5; 회원 in EUC-KR.
    assert_eq!(decode_text(b"\xb1\xbe\xb9\xab\xcb\xbe", None, false), "本公司");
    assert_eq!(decode_text(b"\xa5\xbb\xa4\xbd\xa5\x71\xa1\x41", None, false), "本公司，");
    assert_eq!(decode_text(b"\xc8\xb8\xbf\xf8\xb4\xd4", None, false), "회원님");
    assert_eq!(decode_text(b"won\x92t", None, false), "won\u{2019}t");
}

#[test]
fn compiled_tables_are_in_dbcs_order() {
    // 亜 in the three Japanese codecs, 가 in the two Korean, 啊 and 一 in the Chinese.
    let cells = [(Dbcs::Gb18030, [0xB0, 0xA1], '啊'), (Dbcs::Big5Hkscs, [0xA4, 0x40], '一'),
                 (Dbcs::Cp949, [0xB0, 0xA1], '가'), (Dbcs::Cp932, [0x88, 0x9F], '亜'),
                 (Dbcs::EucJp, [0xB0, 0xA1], '亜'), (Dbcs::ShiftJis, [0x88, 0x9F], '亜'),
                 (Dbcs::EucKr, [0xB0, 0xA1], '가')];
    for (dbcs, [lead, trail], c) in cells {
        assert_eq!(dbcs.cell(lead, trail), Some(c as u32), "{dbcs:?}");
        assert_eq!(reverse_lookup(dbcs, c), Some(vec![lead, trail]), "{dbcs:?}");
    }
    // CP949's extension is not EUC-KR's; JIS X 0212 is EUC-JP's three-byte set.
    assert_eq!(Dbcs::Cp949.cell(0x81, 0x41), Some('갂' as u32));
    assert_eq!(Dbcs::EucKr.cell(0x81, 0x41), None);
    assert_eq!(jisx0212(0xB0, 0xA1), Some('丂'));
    assert_eq!(reverse_lookup(Dbcs::EucJp, '丂'), Some(vec![0x8F, 0xB0, 0xA1]));
    assert_eq!(reverse_lookup(Dbcs::Gb18030, '\u{10FFFF}'), None);
}
