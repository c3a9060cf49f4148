"""Chinese segmentation on a corpus: the same words as stock jieba, and how fast.

    python bench/zh_segment.py                 # check every run of ccert_zh
    python bench/zh_segment.py --limit 300     # the first 300 messages (all ham)
    python bench/zh_segment.py --step 25       # every 25th: spam and ham
    python bench/zh_segment.py --speed         # per-core throughput, this code
    python bench/zh_segment.py --speed --no-run-cache
    python bench/zh_segment.py --speed --stock # stock jieba, dictionary loaded first
    python bench/zh_segment.py --rjieba        # check rjieba's bulk cut (jiebaload.bulk_cutter) instead
    python bench/zh_segment.py --speed --rjieba --no-run-cache

The runs are exactly what the tokenizer hands to chinese.segment() (default
options: NFKC, case folding, OpenCC fold, header and body text), collected by
wrapping segment() while message_tokens() runs.  The reference is a stock
jieba.Tokenizer initialised the way jieba does it (gen_pfdict or its marshal
cache), in a temporary directory.  Exit status 1 when any run differs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from spamnb.text import chinese, tokens  # noqa: E402
from spamnb.mail.message import decode_message  # noqa: E402

DEFAULT_CORPUS = ROOT.parent / "shared" / "corpora" / "ccert_zh"


def corpus_runs(corpus: Path, limit: int | None = None, step: int = 1) -> list[list[str]]:
    """Per message (every `step`th of the index, at most `limit`), the Han
    runs the tokenizer segments."""
    options = tokens.TokenizerOptions()
    lines = (corpus / "index").read_text().splitlines()[::step][:limit]
    out: list[list[str]] = []
    real = chinese.segment
    try:
        chinese.segment = lambda run: out[-1].append(run) or []
        for line in lines:
            relative = line.split("\t")[1]
            out.append([])
            message = decode_message((corpus / relative).read_bytes(), options.wants_header)
            tokens.message_tokens(message, options)
    finally:
        chinese.segment = real
    return out


def stock_tokenizer(directory: str):
    import jieba

    jieba.setLogLevel(40)
    tokenizer = jieba.Tokenizer()
    tokenizer.tmp_dir = directory
    tokenizer.initialize()
    return tokenizer


def differences(runs: list[list[str]], reference) -> list[tuple[str, list[str], list[str]]]:
    """Runs where either of our paths differs from `reference`: a lazy
    tokenizer started afresh for each message (as in a one-message process,
    so no entry loaded for an earlier message can hide a missing one), and
    chinese.segment() as a bulk run uses it (run cache, switch to the whole
    dictionary)."""
    from spamnb.text.jiebaload import LazyTokenizer, load_tokenizer

    out = []
    for message in runs:
        fresh = load_tokenizer(chinese.cache_dir())
        if not isinstance(fresh, LazyTokenizer):
            raise SystemExit(f"no usable prefix file in {chinese.cache_dir()}")
        for run in message:
            theirs = reference.lcut(run)
            for ours in (fresh.lcut(run), chinese.segment(run)):
                if ours != theirs:
                    out.append((run, ours, theirs))
    return out


def rjieba_differences(runs: list[list[str]], reference) -> list[tuple[str, list[str], list[str]]]:
    """Runs where rjieba's bulk cut (what chinese.segment goes over to in bulk) differs from `reference`."""
    from spamnb.text.jiebaload import bulk_cutter

    cut = bulk_cutter()
    if cut is None:
        raise SystemExit("rjieba is not installed")
    return [(run, ours, theirs) for message in runs for run in message
            if (ours := cut(run)) != (theirs := reference.lcut(run))]


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


_run_cache: dict[str, list[str]] = {}


def _cached(run: str, cut) -> list[str]:
    """A dict in place of chinese.segment's lru_cache (no bound: for timing only)."""
    found = _run_cache.get(run)
    if found is None:
        found = _run_cache[run] = cut(run)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--step", type=int, default=1, help="every STEPth message of the index")
    parser.add_argument("--speed", action="store_true", help="time segmentation instead of checking it")
    parser.add_argument("--stock", action="store_true", help="with --speed: stock jieba, dictionary loaded first")
    parser.add_argument("--no-run-cache", action="store_true", help="with --speed: segment every run afresh")
    parser.add_argument("--rjieba", action="store_true", help="rjieba's bulk cut (jiebaload.bulk_cutter)")
    args = parser.parse_args()
    runs = corpus_runs(args.corpus, args.limit, args.step)
    with tempfile.TemporaryDirectory() as directory:
        if args.speed:
            if args.rjieba:
                from spamnb.text.jiebaload import bulk_cutter

                started = time.process_time()
                cut = bulk_cutter()
                cut("中文")
                print(f"rjieba dictionary: {time.process_time() - started:.2f} s CPU (not counted below)")
                speed(runs, cut if args.no_run_cache else lambda run: cut(run) if len(run) > 64 else _cached(run, cut))
            elif args.stock:
                started = time.process_time()
                reference = stock_tokenizer(directory)
                print(f"stock dictionary: {time.process_time() - started:.2f} s CPU (not counted below)")
                speed(runs, reference.lcut)
            else:
                speed(runs, chinese._cut if args.no_run_cache else chinese.segment)
            return 0
        found = (rjieba_differences if args.rjieba else differences)(runs, stock_tokenizer(directory))
    count = sum(map(len, runs))
    print(f"{len(runs)} messages, {count} runs, {len(found)} differences")
    for run, ours, theirs in found[:20]:
        print(f"{run!r}\n  ours:  {ours}\n  jieba: {theirs}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
