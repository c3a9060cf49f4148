"""Tokens before and after a change, for every message of the shared corpora
and of sample_data: the check that a change to decoding or tokenizing
leaves real mail alone.

    python bench/token_identity.py [--rev 78c994a] [--limit N] [--show 20]

The tokenizer at REV (`git archive`d into a temporary directory) and the one
in this checkout each run in a child process of their own (so neither sees
the other's modules) and write one line per message: its origin and a
digest of its tokens with the "content" header preset and with all headers.
The lines are compared, and each message whose tokens differ is listed with
its first differing tokens.  Prints the count of messages compared and of
those that differ, and each side's CPU time.

The standing check since the per-message path moved into the Rust core is
`--rev 78c994a`: the last commit with the Python tokenizer, a frozen
reference the core must match.

Each side finds which API its spamnb has: before the port,
`message_tokens(decode_message(raw, options.wants_header), options)`
(spamnb/mail/message.py, or spamnb/message.py in the older layout); after
it, `spamnb.text.tokens.message_tokens(raw, options)` with decoding in the
core.  This checkout runs on its built core (spamnb/_core*.so).  A REV
after the port needs its own core, which `git archive` does not hold: give
one built from that REV with `--rev-core PATH/TO/_core.abi3.so`; without it
only REVs before the port are supported on the REV side.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ("spamassassin", "trec06p", "ccert_zh")


def messages(limit: int | None):
    """(origin, bytes) of every message, in a fixed order."""
    try:
        from spamnb.mail.sources import read_messages
    except ImportError:  # a revision from before the layers were made packages
        from spamnb.sources import read_messages

    corpora = ROOT.parent / "shared" / "corpora"
    for name in CORPORA:
        index = corpora / name / "index"
        if not index.exists():
            continue
        for line in index.read_text().splitlines():
            _, relative = line.split("\t")
            path = corpora / name / relative
            yield f"{name}/{relative}", path.read_bytes()
            if limit is not None:
                limit -= 1
                if limit <= 0:
                    return
    for folder in ("mail", "mbox", "maildir"):
        for raw in read_messages(str(ROOT / "sample_data" / folder), []):
            yield raw.origin.replace(str(ROOT) + "/", ""), raw.data


def api(source: str | Path) -> str:
    """Which tokenizer API the spamnb under `source` has: "decoded" (before
    the port: decode_message, then message_tokens of the decoded message,
    in spamnb/mail/ or, before the layers were made packages, spamnb/), or "raw" (after
    it: message_tokens of the raw bytes, decoding in the core)."""
    package = Path(source) / "spamnb"
    if (package / "mail" / "message.py").exists():
        return "decoded"
    if (package / "message.py").exists():
        return "decoded-flat"
    return "raw"


def has_core(source: str | Path) -> bool:
    return any((Path(source) / "spamnb").glob("_core*.so")) or any((Path(source) / "spamnb").glob("_core*.pyd"))


def dump(source: str, limit: int | None, full: bool, only: str | None) -> None:
    """In a child: tokenize every message with the spamnb under `source`."""
    sys.path.insert(0, source)
    kind = api(source)
    if kind == "decoded":
        from spamnb.mail.message import decode_message
        from spamnb.text.tokens import HEADER_PRESETS, TokenizerOptions, message_tokens
    elif kind == "decoded-flat":  # a revision from before the layers were made packages
        from spamnb.message import decode_message  # type: ignore[no-redef]
        from spamnb.tokens import HEADER_PRESETS, TokenizerOptions, message_tokens  # type: ignore[no-redef]
    else:
        from spamnb.text.tokens import HEADER_PRESETS, TokenizerOptions, message_tokens
    import spamnb
    if not str(Path(spamnb.__file__).resolve()).startswith(str(Path(source).resolve())):
        raise SystemExit(f"spamnb came from {spamnb.__file__}, not from {source}")

    def tokenize(raw: bytes, options) -> list[str]:
        if kind == "raw":
            return message_tokens(raw, options)
        return message_tokens(decode_message(raw, options.wants_header), options)

    wanted = set(Path(only).read_text().splitlines()) if only else None
    option_sets = (TokenizerOptions(headers=HEADER_PRESETS["content"]),
                   TokenizerOptions(headers=HEADER_PRESETS["all"]))
    started = time.process_time()
    out = sys.stdout
    for origin, raw in messages(limit):
        if wanted is not None and origin not in wanted:
            continue
        cells = [origin]
        for options in option_sets:
            tokens = tokenize(raw, options)
            text = "\x00".join(tokens)
            cells.append(text.encode("utf-8", "surrogatepass").hex() if full else
                         hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest())
        out.write("\t".join(cells) + "\n")
    print(f"cpu\t{time.process_time() - started:.1f}", file=sys.stderr)


def run_side(source: str, limit: int | None, full_for: set[str] | None = None) -> tuple[dict, str]:
    args = [sys.executable, __file__, "--dump", source]
    if limit:
        args += ["--limit", str(limit)]
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as only:
        if full_for is not None:
            only.write("\n".join(sorted(full_for)) + "\n")
            only.flush()
            args += ["--full", "--only", only.name]
        result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stderr)
        raise SystemExit(f"the tokenizer under {source} failed (exit {result.returncode})")
    rows = {}
    for line in result.stdout.splitlines():
        origin, *digests = line.split("\t")
        if full_for is None or origin in full_for:
            rows[origin] = digests
    return rows, result.stderr.strip().rpartition("cpu\t")[2]


def decoded_tokens(hex_text: str) -> list[str]:
    return bytes.fromhex(hex_text).decode("utf-8", "surrogatepass").split("\x00")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rev", default="78c994a",
                        help="the reference revision (default 78c994a, the last with the Python tokenizer);"
                             " one before the port, unless --rev-core is given")
    parser.add_argument("--rev-core", metavar="SO",
                        help="for a REV after the port: its core, built from that REV (spamnb/_core.abi3.so)")
    parser.add_argument("--limit", type=int, help="only the first N messages of the corpora")
    parser.add_argument("--show", type=int, default=20, help="list at most this many differing messages")
    parser.add_argument("--dump", help=argparse.SUPPRESS)
    parser.add_argument("--full", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--only", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.dump:
        dump(args.dump, args.limit, args.full, args.only)
        return
    if not has_core(ROOT):
        raise SystemExit(f"this checkout has no built core ({ROOT}/spamnb/_core*.so): build it first")
    with tempfile.TemporaryDirectory() as before:
        archive = subprocess.run(["git", "archive", "--format=tar", args.rev, "spamnb"], cwd=ROOT,
                                 capture_output=True, check=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(before)
        rev_api = api(before)
        if args.rev_core:
            shutil.copy(args.rev_core, Path(before) / "spamnb" / Path(args.rev_core).name)
        elif rev_api == "raw":  # from the port on, spamnb needs its core, which an archive lacks
            raise SystemExit(f"{args.rev} is after the port (message_tokens of raw bytes, in the core):"
                             " give its built core with --rev-core, or a REV before the port")
        print(f"tokenizer at {args.rev} ({'raw bytes' if rev_api == 'raw' else 'decode_message'})"
              f" against this checkout ({'raw bytes' if api(ROOT) == 'raw' else 'decode_message'})")
        old, old_cpu = run_side(before, args.limit)
        new, new_cpu = run_side(str(ROOT), args.limit)
        differing = sorted(origin for origin in old if old[origin] != new.get(origin))
        print(f"messages compared: {len(old)} (this checkout: {len(new)})")
        print(f"messages with different tokens: {len(differing)}")
        print(f"tokenizing CPU time: before {old_cpu} s, after {new_cpu} s")
        if differing:
            wanted = set(differing[: args.show])
            old_full, _ = run_side(before, args.limit, wanted)
            new_full, _ = run_side(str(ROOT), args.limit, wanted)
            for origin in sorted(wanted):
                for label, a, b in zip(("content", "all"), old_full[origin], new_full[origin]):
                    if a != b:
                        ta, tb = decoded_tokens(a), decoded_tokens(b)
                        only_old = [t for t in dict.fromkeys(ta) if t not in set(tb)]
                        only_new = [t for t in dict.fromkeys(tb) if t not in set(ta)]
                        print(f"  {origin} [{label}] before only {only_old[:6]!r} after only {only_new[:6]!r}"
                              f" ({len(ta)} vs {len(tb)} tokens)")


if __name__ == "__main__":
    main()
