//! The tokenizer's tests: its rules on small texts, hostile shapes.

use ahash::AHashSet as HashSet;

use super::*;
use crate::text::normalise::{self, nfkc, pyunicode};
use crate::mail::status::is_status_value;

/// Han runs as single characters, folded as they are: the tokenizer's
/// own rules without the other stages.
struct CharHan;

impl HanText for CharHan {
    fn fold_variants(&self, run: &str) -> String {
        run.to_string()
    }
    fn segment(&self, run: &str) -> Vec<String> {
        run.chars().map(String::from).collect()
    }
}

fn plain() -> TokenizerOptions {
    TokenizerOptions { stopwords: HashSet::new(), ..TokenizerOptions::default() }
}

fn tokens(text: &str) -> Vec<String> {
    text_tokens_with(text, &plain(), None, &CharHan)
}

#[test]
fn words_links_addresses() {
    assert_eq!(tokens("ＦＲＥＥ Free it's $100 50% a"), ["free", "free", "it's", "$100", "50%"]);
    assert_eq!(tokens("mail Sales@Deals.example now"),
               ["mail", "email:addr:sales@deals.example", "email:domain:deals.example", "now"]);
    assert_eq!(tokens("访问http://a.example.com，联系"), ["访", "问", "url:a.example.com", "url:example.com", "联", "系"]);
    assert_eq!(tokens(&"x".repeat(41)), Vec::<String>::new());
}

#[test]
fn ascii_and_other_text_scan_alike() {
    // The same text with and without a char past ASCII at its end (the
    // scan over bytes and the one over chars); "http:// x" is a word
    // "http" followed by no link.
    for text in ["$a+b@x.com http:// x.y@z.org www. it's-50% a.b@ http://h.example/p?q=1 ".to_string(),
                 "+me@x.org,ww.w wwwx www.a.b $5 a-b.c'd".to_string()] {
        let mut with_other = text.clone();
        with_other.push('é');
        let mut expected = latin_findall(&with_other);
        if expected.last().is_some_and(|last| last.ends_with('é')) {
            let last = expected.pop().unwrap_or_default();
            let cut = last.trim_end_matches('é');
            if !cut.is_empty() {
                expected.push(cut.to_string());
            }
        }
        assert_eq!(latin_findall(&text), expected, "{text}");
    }
    assert_eq!(latin_findall("http:// a@b.c"), ["http", "a@b.c"]);
}

#[test]
fn an_address_after_an_impure_match_is_found() {
    assert_eq!(latin_findall("$a+b@x.com"), ["$a", "+b@x.com"]);
    assert_eq!(latin_findall("it's+me@x.org"), ["it's", "+me@x.org"]);
    assert_eq!(latin_findall("$a.b@x.com"), ["$a.b", "x.com"]);
    assert_eq!(latin_findall("a.b@"), ["a.b"]);
}

#[test]
fn han_budget_spills_single_characters() {
    let mut budget = Budget { han: 4, ..Budget::default() };
    let out = text_tokens_with(&"发票".repeat(10), &plain(), Some(&mut budget), &CharHan);
    assert_eq!(out.len(), 4);
    assert_eq!(budget.spilled.len(), 16);
    let mut budget = Budget { han: 0, ..Budget::default() };
    let out = text_tokens_with("发 ab 票 cd", &plain(), Some(&mut budget), &CharHan);
    assert_eq!(out, ["ab", "cd"]);
    assert_eq!(budget.spilled, ["发", "票"]);
}

#[test]
fn received_message_id_and_date() {
    let mut found = received_tokens("from unknown (HELO mx3.mail.example.com.cn) ([222.135.252.194])\n\tby \
                                     relay.example.org with ESMTP id 4F2A19C3B1; Sat, 3 Apr 2004 14:35:34 -0400");
    found.sort();
    let mut expected = vec!["received:ip:222.135.252", "received:ip:222.135", "received:domain:example.com.cn",
                            "received:domain:example.org", "received:from", "received:unknown", "received:helo",
                            "received:by", "received:with", "received:esmtp", "received:id"];
    expected.sort();
    assert_eq!(found, expected);
    assert_eq!(received_tokens("a.example.com1 xy"), ["received:domain:a.example", "received:xy"]);
    assert_eq!(message_id_tokens("message-id", "<1.2@mail.example.co.uk>"), ["message-id:domain:example.co.uk"]);
    assert_eq!(message_id_tokens("in-reply-to", "<garbage>"), ["in-reply-to:domain:none"]);
    assert_eq!(date_tokens("date", "Sat, 3 Apr 2004 10:34:36 -0500 (EST)"),
               ["date:zone:-0500", "date:shape:a, 9 a 9999 99:99:99 -9999 (a)"]);
    assert_eq!(date_tokens("date", "3 Apr 2004 GMT (a (b)"), ["date:zone:gmt", "date:shape:9 a 9999 a (a (a)"]);
    assert_eq!(date_tokens("date", ""), ["date:zone:none", "date:shape:"]);
}

#[test]
fn urls() {
    assert_eq!(url_tokens("http://www.shop.example.com.cn/x"), ["url:www.shop.example.com.cn", "url:example.com.cn"]);
    assert_eq!(url_tokens("http://1.2.3.4/x"), ["url:1.2.3.4"]);
    assert_eq!(url_host("http://[::1]:80/x"), Some("::1".to_string()));
    assert_eq!(url_host("http://[bad/x"), None);
    assert_eq!(url_host("http://[1.2.3.4]/"), None);
    assert_eq!(url_host("http://a℀b.com/"), None);
    assert_eq!(url_host("javascript:void(0)"), Some(String::new()));
}

#[test]
fn status_values() {
    assert!(is_status_value(" Yes, score=0.99, log-odds=-inf, model=x"));
    assert!(!is_status_value("Yes, score=, log-odds=1, model=x"));
}

#[test]
fn expanders_are_the_characters_nfkc_makes_four_or_more_of() {
    for code in 0..=0x10FFFF_u32 {
        if let Some(c) = char::from_u32(code) {
            let long = nfkc(c.encode_utf8(&mut [0; 4])).chars().count() >= 4;
            assert_eq!(normalise::is_expander(c), long, "{code:x}");
        }
    }
    assert!(!pyunicode::MARKS.is_empty());
}

#[test]
fn hostile_shapes_finish() {
    for text in ["-".repeat(200_000), "+.".repeat(100_000), ".-a".repeat(50_000), "-a@".repeat(50_000),
                 "a@b".repeat(50_000), "a'".repeat(100_000) + "-x@y.com", "a@b.c+".repeat(30_000) + "@x.com",
                 "$a.".repeat(30_000) + "@x.com", "a".to_string() + &"\u{301}\u{316}".repeat(50_000),
                 "\u{fdfa}".repeat(30_000), "(".repeat(50_000) + ")"] {
        let start = std::time::Instant::now();
        let _ = tokens(&text);
        let _ = date_tokens("date", &text);
        let _ = received_tokens(&text);
        assert!(start.elapsed().as_secs_f64() < 20.0, "{}", &text[..10]);
    }
}
