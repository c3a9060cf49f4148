//! Tables the core would otherwise build at run time, at a process's first
//! message that needs them (a cold start's cost): built here once, written
//! to OUT_DIR and compiled in with include_bytes!.

#[path = "build_tables/dbcs_layout.rs"]
mod dbcs_layout;
#[path = "build_tables/dbcs_corrections.rs"]
mod dbcs_corrections;
#[path = "build_tables/dbcs_tables.rs"]
mod dbcs_tables;
#[path = "build_tables/jieba_index.rs"]
mod jieba_index;
#[path = "build_tables/t2s_first_chars.rs"]
mod t2s_first_chars;
#[path = "build_tables/bmp_layout.rs"]
mod bmp_layout;
#[path = "build_tables/bmp_classes.rs"]
mod bmp_classes;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build_tables");
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    dbcs_tables::write(&out);
    let manifest = std::path::PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    jieba_index::write(&manifest, &out);
    t2s_first_chars::write(&manifest, &out);
    bmp_classes::write(&manifest, &out);
}
