//! The per-message entry points: a decoded (or raw) message → all its
//! tokens in reading order, header fields, body text with its word pairs,
//! links, attachments and the decoder's bounds; and which part of a message
//! a token comes from.

use ahash::AHashSet as HashSet;

use crate::mail::status::is_status_value;
use super::{header_tokens_with, joined, text_tokens_with, url_tokens, Budget, CoreHan, HanText,
            TokenizerOptions};
use crate::mail::message::DecodedMessage;
use crate::text::normalise::casefold;

/// The prefixes of tokens that come from the body (links, addresses in the
/// text, attachments, a decoder's bound); every other token holding ":" is a
/// header field's (`FIELD:...`), since body words never hold one.
pub const BODY_PREFIXES: [&str; 4] = ["url:", "email:", "attach:", "cut:"];

/// Which part of a message a token comes from: "subject" (a word of the
/// Subject), "header" (any other header field: how the mail travelled and
/// was written), or "body" (words, pairs, links, attachments).
pub fn token_part(token: &str) -> &'static str {
    if !token.contains(':') || BODY_PREFIXES.iter().any(|p| token.starts_with(p)) {
        "body"
    } else if token.starts_with("subject:") {
        "subject"
    } else {
        "header"
    }
}

/// All tokens of a decoded message, in reading order, repeats kept.
pub fn message_tokens(message: &DecodedMessage, options: &TokenizerOptions) -> Vec<String> {
    message_tokens_with(message, options, &CoreHan)
}

pub fn message_tokens_with(message: &DecodedMessage, options: &TokenizerOptions, han: &dyn HanText) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen_addresses: HashSet<&str> = HashSet::new();
    let mut header_budget = Budget::default();
    let mut body_budget = Budget::default();
    for (name, value) in &message.headers {
        if !options.wants_header(name) || is_status_value(value) {
            continue;
        }
        let listed = message.addresses.iter().find(|(field, _)| field == name);
        let mut addresses = None;
        if let Some((_, list)) = listed {
            if !seen_addresses.insert(name.as_str()) {
                continue; // all of a field's addresses, once
            }
            addresses = Some(list.as_slice());
        }
        out.extend(header_tokens_with(name, value, options, addresses, Some(&mut header_budget), han));
    }
    for text in &message.texts {
        let words = text_tokens_with(text, options, Some(&mut body_budget), han);
        if options.bigrams {
            // Pairs of words, not of url:/email: tokens.
            let plain: Vec<&String> = words.iter().filter(|w| !w.contains(':')).collect();
            let pairs: Vec<String> = plain.windows(2).map(|pair| joined(&[pair[0], " ", pair[1]])).collect();
            out.extend(words);
            out.extend(pairs);
        } else {
            out.extend(words);
        }
    }
    out.append(&mut body_budget.spilled);
    for url in &message.urls {
        out.extend(url_tokens(url));
    }
    // Attachment type and extension: level on these corpora (0.272 / 0.017
    // without), where attachments are rare; they are the only trace an
    // image-only or malware message leaves.
    for (content_type, filename) in &message.attachments {
        out.push(format!("attach:type:{content_type}"));
        if let Some((_, extension)) = filename.rsplit_once('.') {
            let extension: String = casefold(extension).chars().take(16).collect();
            out.push(format!("attach:ext:{extension}"));
        }
    }
    // A bound the decoder stopped at ("header bytes"): the model learns what
    // such mail is, as of any other token.  Real mail never has one.
    out.extend(message.cut.iter().map(|what| format!("cut:{}", what.replace(' ', "-"))));
    out
}


/// All tokens of a raw message: decoded (mail::message::decode_message,
/// reading only the header fields `options` wants), then tokenized.  The
/// whole per-message path in one call, with no Python in between.
pub fn raw_message_tokens(raw: &[u8], options: &TokenizerOptions) -> Vec<String> {
    let message = crate::mail::message::decode_message(raw, &|name| options.wants_header(name));
    message_tokens(&message, options)
}
