"""What a model file's bytes are: each section's size and its bytes a token,
beside bogofilter's database for the same training mail.

    python bench/model_bytes.py MODEL [--bogofilter DIR]

The model-size target compares the whole file with bogofilter's wordlist.db;
this says which part of the file is over, and what the same counts would take
stored otherwise (each alternative computed from the model's own arrays, zlib
level 6, so the figures are what a format change would get, not estimates).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from spamnb.model.modelread import read_model  # noqa: E402


def varint_size(values: np.ndarray) -> int:
    """Bytes of LEB128 varints of `values` (unsigned)."""
    values = values.astype(np.uint64)
    size = np.ones(len(values), dtype=np.int64)
    for bits in range(7, 64, 7):
        size += values >= (np.uint64(1) << np.uint64(bits))
    return int(size.sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--bogofilter", help="bogofilter's database folder, trained on the same mail")
    args = parser.parse_args()
    model = read_model(args.model)
    sections = model.meta["sections"]
    vocabulary = int(model.meta["vocabulary"])
    total = Path(args.model).stat().st_size
    print(f"{args.model}: {total:,} bytes, {vocabulary:,} tokens, {total / vocabulary:.1f} bytes a token")
    print(f"  {'section':<16}{'stored bytes':>14}{'a token':>9}  codec")
    for name, entry in sorted(sections.items(), key=lambda item: -int(item[1]["length"])):
        length = int(entry["length"])
        print(f"  {name:<16}{length:>14,}{length / vocabulary:>9.2f}  {entry.get('codec') or 'raw'}")
    print(f"  {'metadata etc.':<16}{total - sum(int(e['length']) for e in sections.values()):>14,}")

    keys = np.frombuffer(model.decoded("keys"), dtype="<u8")
    occurrences = np.frombuffer(model.decoded("occurrences"), dtype=sections["occurrences"]["dtype"])
    text = bytes(model.decoded("token_bytes"))
    gaps = np.diff(keys, prepend=np.uint64(0))
    print("  the same counts stored otherwise:")
    alternatives = {
        "keys, gaps as varints": varint_size(gaps),
        "keys, 32-bit, gaps as varints": varint_size(np.diff(np.unique(keys >> np.uint64(32)), prepend=np.uint64(0))),
        "occurrences as varints": varint_size(occurrences),
        "occurrences, zlib": len(zlib.compress(occurrences.tobytes())),
        "token text, zlib": len(zlib.compress(text)),
    }
    for name, size in alternatives.items():
        print(f"    {name:<32}{size:>12,}{size / vocabulary:>9.2f}")
    once = int(np.count_nonzero(occurrences.reshape(2, -1).sum(axis=0) == 1))
    print(f"  tokens seen once: {once:,} ({once / vocabulary:.0%})")
    if args.bogofilter:
        database = Path(args.bogofilter) / "wordlist.db"
        dump = subprocess.run(["bogoutil", "-d", str(database)], capture_output=True, check=True).stdout
        tokens = dump.count(b"\n")
        size = database.stat().st_size
        print(f"{database}: {size:,} bytes, {tokens:,} tokens, {size / tokens:.1f} bytes a token")


if __name__ == "__main__":
    main()
