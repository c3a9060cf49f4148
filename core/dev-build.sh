#!/usr/bin/env bash
# Build the extension in debug mode and put it where `import spamnb._core`
# finds it in this checkout (for working on the core without reinstalling).
#   core/dev-build.sh [--release]
set -euo pipefail
cd "$(dirname "$0")"
profile=debug
if [ "${1:-}" = "--release" ]; then profile=release; set -- --release; else set --; fi
cargo build --features extension-module "$@"
target="${CARGO_TARGET_DIR:-target}"
# Copied beside it and renamed over it: a running process keeps the old file
# it has mapped, where writing into that file in place could crash it.
cp "$target/$profile/libspamnb_core.so" ../spamnb/.core.so.new
mv -f ../spamnb/.core.so.new ../spamnb/_core.abi3.so
