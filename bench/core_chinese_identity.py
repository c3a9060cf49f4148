"""The core's Chinese (spamnb._core.fold_variants, .segment) against the
Python's (spamnb.text.variants.fold_variants, spamnb.text.chinese.segment)
on every Han run of the shared corpora, as the Python tokenizer sees them:
each message decoded (decode_message, the tokenizer's header fields), each
header value and text normalised (tokens.normalise), split by
tokens._han_run().  Each distinct run is compared three ways:

  fold      Python fold_variants(run) == Rust fold_variants(run)
  segment   Python segment(fold) == Rust segment(fold), fold the Python's
            (what a model with variant folding counts)
  plain     Python segment(run) == Rust segment(run) (a model without it)

    python bench/core_chinese_identity.py                     # all three corpora
    python bench/core_chinese_identity.py --corpus ccert_zh --limit 500

Prints the runs compared, the identical, and the differences by kind with
counts and one example each.  Exit status 1 when any run differs.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from spamnb import _core  # noqa: E402
from spamnb.mail.message import decode_message  # noqa: E402
from spamnb.mail.sources import read_messages  # noqa: E402
from spamnb.text import chinese, tokens, variants  # noqa: E402

CORPORA = ROOT.parent / "shared" / "corpora"


def han_runs(raw: bytes, options: tokens.TokenizerOptions):
    message = decode_message(raw, options.wants_header)
    texts = [value for _, value in message.headers] + list(message.texts)
    split = tokens._han_run().split
    for text in texts:
        text = tokens.normalise(text)
        if not text or max(text) < "\u2e80":
            continue
        yield from (run for index, run in enumerate(split(text)) if index % 2 and run)


def kind_of(python: list[str], rust: list[str]) -> str:
    if "".join(python) != "".join(rust):
        return "different characters"
    if len(python) < len(rust):
        return "Rust cuts finer"
    if len(python) > len(rust):
        return "Rust cuts coarser"
    return "same count, other cuts"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", action="append", choices=["spamassassin", "trec06p", "ccert_zh"])
    parser.add_argument("--limit", type=int, help="messages per corpus")
    args = parser.parse_args()
    options = tokens.TokenizerOptions()
    failed = 0
    for name in args.corpus or ["ccert_zh", "spamassassin", "trec06p"]:
        started = time.perf_counter()
        runs: Counter[str] = Counter()
        messages = 0
        for index, message in enumerate(read_messages(str(CORPORA / name), [])):
            if args.limit is not None and index >= args.limit:
                break
            messages += 1
            runs.update(han_runs(message.data, options))
        differences: Counter[str] = Counter()
        examples: dict[str, str] = {}
        identical = 0
        for run in runs:
            same = True
            python_fold, rust_fold = variants.fold_variants(run), _core.fold_variants(run)
            checks = [("fold", python_fold, rust_fold),
                      ("segment", chinese.segment(python_fold), _core.segment(python_fold)),
                      ("plain", chinese.segment(run), _core.segment(run))]
            for check, python, rust in checks:
                if python != rust:
                    same = False
                    kind = check if check == "fold" else f"{check}: {kind_of(python, rust)}"
                    differences[kind] += 1
                    examples.setdefault(kind, f"{run!r}: Python {python!r}, Rust {rust!r}")
            identical += same
        total = sum(runs.values())
        print(f"{name}: {messages} messages, {total} Han runs, {len(runs)} distinct compared, "
              f"{identical} identical ({time.perf_counter() - started:.0f} s)")
        for kind, count in differences.most_common():
            print(f"  {kind}: {count} distinct runs, e.g. {examples[kind][:300]}")
        failed |= bool(differences)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
