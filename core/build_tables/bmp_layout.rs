//! How the BMP class table is laid out: the bit of each class in a code
//! point's byte, and the table's two stages.  The build script writes the
//! table by it (bmp_classes.rs) and the crate reads it by it
//! (src/text/normalise.rs): one layout, so the two cannot drift apart.

/// Python's `\w`, `\s`, `\d`, str.isdigit and unassigned (text/pyunicode.rs),
/// and where NFKC may cut a text (text/nfkc_boundary.rs).
pub const WORD_BIT: u8 = 1;
pub const SPACE_BIT: u8 = 2;
pub const DECIMAL_BIT: u8 = 4;
pub const DIGIT_BIT: u8 = 8;
pub const UNASSIGNED_BIT: u8 = 16;
pub const NFKC_BOUNDARY_BIT: u8 = 32;

/// Code points a leaf holds, a byte each.
pub const LEAF: usize = 256;
/// The first stage: a little-endian u16 leaf number for each block of LEAF
/// code points of the BMP; the leaves follow it.
pub const STAGE1_BYTES: usize = 2 * (0x10000 / LEAF);
