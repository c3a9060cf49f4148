"""Chinese segmentation on a corpus: the same words as stock jieba, and how fast.

    python bench/zh_segment.py                 # check every run of ccert_zh
    python bench/zh_segment.py --limit 300     # the first 300 messages (all ham)
    python bench/zh_segment.py --step 25       # every 25th: spam and ham
    python bench/zh_segment.py --speed         # per-core throughput of the core's segment()
    python bench/zh_segment.py --speed --stock # stock jieba, dictionary loaded first

Segmentation is the Rust core's (`spamnb._core.segment`, core/src/text/).
The runs are exactly what the core's tokenizer segments (default options:
NFKC, case folding, variant fold, header and body text), collected through
the core's test hook `_message_tokens_python_han` (Han runs handed to Python
callables: the core's own fold_variants, and a collector that segments with
the core's segment) over the core's decode_message.  The reference is a
stock jieba.Tokenizer initialised the way jieba does it (gen_pfdict or its
marshal cache), in a temporary directory; jieba is no longer a dependency of
spamnb: install it to check (pip install jieba).  The Python run cache and
rjieba's bulk cut (--no-run-cache, --rjieba) went with the Python
segmentation.  Exit status 1 when any run differs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from spamnb import _core  # noqa: E402
from spamnb.text import tokens  # noqa: E402

DEFAULT_CORPUS = ROOT.parent / "shared" / "corpora" / "ccert_zh"


def corpus_runs(corpus: Path, limit: int | None = None, step: int = 1) -> list[list[str]]:
    """Per message (every `step`th of the index, at most `limit`), the Han
    runs the tokenizer segments."""
    options = tokens.TokenizerOptions()
    lines = (corpus / "index").read_text().splitlines()[::step][:limit]
    out: list[list[str]] = []

    def collect(run: str) -> list[str]:
        out[-1].append(run)
        return _core.segment(run)

    fold = _core.fold_variants if options.fold_variants else (lambda run: run)
    for line in lines:
        relative = line.split("\t")[1]
        out.append([])
        headers, addresses, texts, urls, attachments, parse_failed, cut = _core.decode_message(
            (corpus / relative).read_bytes(), options.wants_header)
        message = types.SimpleNamespace(headers=headers, addresses=addresses, texts=texts, urls=urls,
                                        attachments=attachments, parse_failed=parse_failed, cut=cut)
        _core._message_tokens_python_han(message, options, fold, collect)
    return out


def stock_tokenizer(directory: str):
    import jieba

    jieba.setLogLevel(40)
    tokenizer = jieba.Tokenizer()
    tokenizer.tmp_dir = directory
    tokenizer.initialize()
    return tokenizer


def differences(runs: list[list[str]], reference) -> list[tuple[str, list[str], list[str]]]:
    """Runs where the core's segment() differs from `reference`."""
    return [(run, ours, theirs) for message in runs for run in message
            if (ours := list(_core.segment(run))) != (theirs := reference.lcut(run))]


def speed(runs: list[list[str]], cut) -> None:
    """Per-core rate by CPU time (the machine is shared; wall time shown too)."""
    size = sum(len(run.encode()) for message in runs for run in message)
    wall, cpu = time.perf_counter(), time.process_time()
    for message in runs:
        for run in message:
            cut(run)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"{len(runs)} messages, {size / 1e6:.2f} MB of Han text: {cpu:.2f} s CPU ({wall:.2f} s wall), "
          f"{size / 1e6 / cpu:.2f} MB/s, {len(runs) / cpu:.0f} msg/s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--step", type=int, default=1, help="every STEPth message of the index")
    parser.add_argument("--speed", action="store_true", help="time segmentation instead of checking it")
    parser.add_argument("--stock", action="store_true", help="with --speed: stock jieba, dictionary loaded first")
    args = parser.parse_args()
    runs = corpus_runs(args.corpus, args.limit, args.step)
    with tempfile.TemporaryDirectory() as directory:
        if args.speed:
            if args.stock:
                started = time.process_time()
                reference = stock_tokenizer(directory)
                print(f"stock dictionary: {time.process_time() - started:.2f} s CPU (not counted below)")
                speed(runs, reference.lcut)
            else:
                speed(runs, _core.segment)
            return 0
        found = differences(runs, stock_tokenizer(directory))
    count = sum(map(len, runs))
    print(f"{len(runs)} messages, {count} runs, {len(found)} differences")
    for run, ours, theirs in found[:20]:
        print(f"{run!r}\n  ours:  {ours}\n  jieba: {theirs}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
