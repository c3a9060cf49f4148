"""The Rust tokenizer (spamnb._core.message_tokens) against the Python one
(spamnb.text.tokens.message_tokens) on every message of the shared corpora.

    PYTHONPATH=$PWD python bench/core_tokens_identity.py [--limit N] [--han auto|core|python]

Each message is decoded once by the Python decoder (decode_message with the
options' wants_header, as the scoring path does) and tokenized by both, with
the default options and with headers=content.  Han runs: `core` segments and
folds them in Rust (text/chinese.rs, text/variants.rs); `python` hands them
to the Python segment() and fold_variants() through a test-only callback, so
everything else is compared before the Rust segmentation is; `auto` is core
when it is implemented.  Prints the messages compared and identical per
corpus and option set, then the differing messages by kind of token
(a message counts once per kind it shows), with one example each.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA_DIR = Path(os.environ.get("SPAMNB_CORPORA", "/work/shared/corpora"))
CORPORA = ("spamassassin", "trec06p", "ccert_zh")


def messages(name: str, limit: int | None):
    index = CORPORA_DIR / name / "index"
    for count, line in enumerate(index.read_text().splitlines()):
        if limit is not None and count >= limit:
            return
        _, relative = line.split("\t")
        yield relative, (CORPORA_DIR / name / relative).read_bytes()


def kind(token: str) -> str:
    """What sort of token: its field or prefix, bigram or word, ASCII or not."""
    if ":" in token:
        head = token.split(":", 1)[0]
        rest = token[len(head) + 1:]
        if head in ("url", "email", "attach", "cut"):
            label = head
        elif rest.startswith(("addr:", "domain:", "zone:", "shape:", "ip:")):
            label = "FIELD:" + rest.split(":", 1)[0]
        elif head == "received":
            label = "received:word"
        else:
            label = "FIELD:word"
    else:
        label = "body bigram" if " " in token else "body word"
    return label + ("" if token.isascii() else " (non-ASCII)")


def core_han_works() -> bool:
    from spamnb import _core
    from spamnb.text.tokens import TokenizerOptions

    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:  # the stubs' panic message
            os.dup2(null.fileno(), 2)
            _core.text_tokens("中文發票", TokenizerOptions())
        return True
    except BaseException:  # pyo3's PanicException: the stubs of chinese.rs / variants.rs
        return False
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, help="messages per corpus")
    parser.add_argument("--han", choices=("auto", "core", "python"), default="auto")
    parser.add_argument("--corpus", action="append", choices=CORPORA)
    args = parser.parse_args()

    from spamnb import _core
    from spamnb.mail.message import decode_message
    from spamnb.text import tokens
    from spamnb.text.chinese import segment
    from spamnb.text.variants import fold_variants

    han = args.han
    if han == "auto":
        han = "core" if core_han_works() else "python"
    print(f"Han runs segmented and folded by: {'Rust (core)' if han == 'core' else 'Python (callback)'}")
    if han == "core":
        rust = _core.message_tokens
    else:
        def rust(decoded, options):
            return _core._message_tokens_python_han(decoded, options, fold_variants, segment)

    option_sets = {
        "default": tokens.TokenizerOptions(),
        "headers=content": tokens.TokenizerOptions(headers=tokens.TokenizerOptions.parse_headers("content")),
    }
    kinds: collections.Counter = collections.Counter()
    examples: dict[str, str] = {}
    times = {"python": 0.0, "rust": 0.0}
    for corpus in args.corpus or CORPORA:
        for label, options in option_sets.items():
            compared = identical = 0
            for relative, raw in messages(corpus, args.limit):
                decoded = decode_message(raw, options.wants_header)
                start = time.process_time()
                expected = tokens.message_tokens(decoded, options)
                middle = time.process_time()
                found = rust(decoded, options)
                times["python"] += middle - start
                times["rust"] += time.process_time() - middle
                compared += 1
                if found == expected:
                    identical += 1
                    continue
                only_python = collections.Counter(expected) - collections.Counter(found)
                only_rust = collections.Counter(found) - collections.Counter(expected)
                seen = {kind(t) for t in only_python} | {kind(t) for t in only_rust}
                if not seen:
                    seen = {"order only"}
                for name in seen:
                    kinds[name] += 1
                    if name not in examples:
                        py = [t for t in only_python if kind(t) == name][:3]
                        rs = [t for t in only_rust if kind(t) == name][:3]
                        examples[name] = f"{corpus}/{relative} [{label}]: python {py!r} rust {rs!r}"
            print(f"{corpus:13} {label:16} compared {compared:6}  identical {identical:6}  "
                  f"differing {compared - identical}", flush=True)
    print(f"tokenizing CPU time: python {times['python']:.1f} s, rust {times['rust']:.1f} s")
    if not kinds:
        print("no differences")
    for name, count in kinds.most_common():
        print(f"{count:6}  {name}\n        e.g. {examples[name]}")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
