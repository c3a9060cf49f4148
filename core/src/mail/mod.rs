//! Raw bytes → a decoded message: header blocks, MIME parts, transfer
//! encodings, charsets, HTML reduced to visible text, address lists.

pub mod addresses;
pub mod charsets;
mod charset_tables;
pub mod digest;
pub mod html;
pub mod message;
pub mod mbox;
pub mod mime;
pub mod status;
