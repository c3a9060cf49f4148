"""Tokens before and after a change, for every message of the shared corpora
and of sample_data: the check that a change to decoding or tokenizing
leaves real mail alone.

    python bench/token_identity.py [--rev a3a340c] [--limit N] [--show 20]

The tokenizer at REV (`git archive`d into a temporary directory) and the one
in this checkout each run in a child process of their own (so neither sees
the other's modules) and write one line per message: its origin and a
digest of its tokens with the default header preset and with all headers.
The lines are compared, and each message whose tokens differ is listed with
its first differing tokens.  Prints the count of messages compared and of
those that differ, and each side's CPU time.
"""

from __future__ import annotations

import argparse
import hashlib
import io
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
    except ImportError:  # a revision before the layout of issue 15
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


def dump(source: str, limit: int | None, full: bool) -> None:
    """In a child: tokenize every message with the spamnb under `source`."""
    sys.path.insert(0, source)
    try:
        from spamnb.mail.message import decode_message
        from spamnb.text.tokens import HEADER_PRESETS, TokenizerOptions, message_tokens
    except ImportError:  # a revision before the layout of issue 15
        from spamnb.message import decode_message
        from spamnb.tokens import HEADER_PRESETS, TokenizerOptions, message_tokens

    option_sets = (TokenizerOptions(), TokenizerOptions(headers=HEADER_PRESETS["all"]))
    started = time.process_time()
    out = sys.stdout
    for origin, raw in messages(limit):
        cells = [origin]
        for options in option_sets:
            tokens = message_tokens(decode_message(raw, options.wants_header), options)
            text = "\x00".join(tokens)
            cells.append(text.encode("utf-8", "surrogatepass").hex() if full else
                         hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest())
        out.write("\t".join(cells) + "\n")
    print(f"cpu\t{time.process_time() - started:.1f}", file=sys.stderr)


def run_side(source: str, limit: int | None, full_for: set[str] | None = None) -> tuple[dict, str]:
    args = [sys.executable, __file__, "--dump", source]
    if limit:
        args += ["--limit", str(limit)]
    if full_for is not None:
        args += ["--full"]
    result = subprocess.run(args, capture_output=True, text=True, check=True)
    rows = {}
    for line in result.stdout.splitlines():
        origin, *digests = line.split("\t")
        if full_for is None or origin in full_for:
            rows[origin] = digests
    return rows, result.stderr.strip().rpartition("cpu\t")[2]


def decoded_tokens(hex_text: str) -> list[str]:
    return bytes.fromhex(hex_text).decode("utf-8", "surrogatepass").split("\x00")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rev", default="a3a340c")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--show", type=int, default=20)
    parser.add_argument("--dump", help=argparse.SUPPRESS)
    parser.add_argument("--full", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.dump:
        dump(args.dump, args.limit, args.full)
        return
    with tempfile.TemporaryDirectory() as before:
        archive = subprocess.run(["git", "archive", "--format=tar", args.rev, "spamnb"], cwd=ROOT,
                                 capture_output=True, check=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(before)
        old, old_cpu = run_side(before, args.limit)
        new, new_cpu = run_side(str(ROOT), args.limit)
        differing = sorted(origin for origin in old if old[origin] != new.get(origin))
        print(f"tokenizer at {args.rev} against this checkout")
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
