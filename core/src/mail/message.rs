//! One raw message → what the tokenizer reads (`DecodedMessage`).

/// What the tokenizer reads of one message (mirrors spamnb/mail/message.py).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct DecodedMessage {
    /// (lower-case field name, decoded value) of each top-level header, in order.
    pub headers: Vec<(String, String)>,
    /// Address fields in first-seen order: (field name, [(display name, address)]).
    pub addresses: Vec<(String, Vec<(String, String)>)>,
    pub texts: Vec<String>,
    pub urls: Vec<String>,
    pub attachments: Vec<(String, String)>,
    pub parse_failed: bool,
    pub cut: Vec<String>,
}

/// Decode a raw RFC 5322 message; never fails.  `wanted_header(name)` limits
/// header decoding to the fields a caller reads.
pub fn decode_message(_raw: &[u8], _wanted_header: &dyn Fn(&str) -> bool) -> DecodedMessage {
    unimplemented!("ported from spamnb/mail/message.py")
}
