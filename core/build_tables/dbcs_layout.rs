//! How the compiled-in double-byte tables are laid out: the codecs in the
//! order that indexes them, and a cell's place within one codec's table.
//! The build script writes the tables by it (dbcs_tables.rs) and the crate
//! reads them by it (src/mail/charsets/dbcs.rs): one layout, so the two
//! cannot drift apart.

/// The double-byte codecs whose cells are compiled in; a codec's discriminant
/// is its table's place in the compiled-in cells.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Dbcs {
    Gb18030,
    Big5Hkscs,
    Cp949,
    Cp932,
    EucJp,
    ShiftJis, // JIS X 0208 alone (no Windows extensions), as Python's shift_jis
    EucKr,    // KS X 1001 alone (no CP949 extensions), as Python's euc_kr
}

/// Every codec, in table order.
#[allow(dead_code)] // the build script's: the crate reads one table at a time
pub const CODECS: [Dbcs; 7] =
    [Dbcs::Gb18030, Dbcs::Big5Hkscs, Dbcs::Cp949, Dbcs::Cp932, Dbcs::EucJp, Dbcs::ShiftJis, Dbcs::EucKr];

/// Trail bytes a lead byte's row holds (0x40..=0xFE), and the cells of a
/// codec's table (lead bytes 0x81..=0xFE).
pub const CELL_TRAILS: usize = 0xFF - 0x40;
pub const CELLS: usize = 126 * CELL_TRAILS;

/// A lead and trail byte's cell in its codec's table.
pub fn cell_index(lead: u8, trail: u8) -> usize {
    (lead as usize - 0x81) * CELL_TRAILS + (trail as usize - 0x40)
}
