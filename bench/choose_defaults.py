"""Choose spamnb's defaults by their worst result over every protocol.

A default must hold on mail it was never tuned on: later mail from the same
server, mail from another server and year.  This runs each variant (the
names of bench/ablate.py, joined by '+') through the protocols below, all
inside the training parts of bench/compare.py's splits, so the test parts
that the published comparison reports stay unseen by any choice made here:

    trec06p-time     train on the first 70 % of trec06p's training part (its
                     first 14,000 messages, delivery order), test on the
                     remaining 30 % of it: later mail, same server
    ccert_zh-time    ccert_zh (content headers: its routing headers leak the
                     label), per class: its index holds nearly all ham before
                     all spam, so the earlier 70 % of each class trains
    sa-cv            spamassassin (no delivery order): 5-fold CV inside its
                     seeded 70 % training part
    sa->trec         train on spamassassin's training part (2002), test on
                     trec06p's (2006): another server, four years on
    trec->sa         the reverse
    trec06p-online   TREC immediate feedback over trec06p's training part
                     (its first 14,000 messages), from an empty model (in-process, the formulas
                     `spamnb learn` uses)

For each protocol it prints 1-ROCA % (lower is better) and, where a model is
trained, the verdicts at the cutoffs `train` stores: ham lost %, spam flagged
%, unsure %, and the spam the best cutoff losing at most 0.1 % of the test
ham would flag.  The last table gives each variant's ratio to the best
variant per protocol and its worst ratio: the number a default is chosen by.

    .venv/bin/python bench/choose_defaults.py --variant baseline --variant headers=content [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ablate  # noqa: E402
import corpora  # noqa: E402

from spamnb.model.counts import TokenCounts  # noqa: E402
from spamnb.model.labels import HAM, SPAM  # noqa: E402
from spamnb.app.metrics import miss_at_fpr, one_minus_roca_percent  # noqa: E402
from spamnb.model.keyscores import raw_score_from_counts  # noqa: E402
from spamnb.model.options import TrainOptions  # noqa: E402
from spamnb.text.tokens import TokenizerOptions  # noqa: E402
from spamnb.learning.training import fit_tokenized  # noqa: E402

PROTOCOLS = ("trec06p-time", "ccert_zh-time", "sa-cv", "sa->trec", "trec->sa", "trec06p-online")
ONLINE_MESSAGES = 14000  # all of trec06p's training part
CV_FOLDS = 5


def training_part(name: str) -> list[tuple[int, Path]]:
    """The outer training part: what bench/compare.py trains on, never its test part."""
    items = corpora.load_index(name)
    if name == "trec06p":
        return items[: int(len(items) * 0.7)]  # delivery order, classes interleaved: the first 70 %
    # spamassassin has no delivery order (a seeded shuffle per class), and
    # ccert_zh's index, in time order, holds nearly all its ham before its
    # spam (SOURCE.md), so both are cut per class.
    train, _ = corpora.split(name)
    return train


# ------------------------------------------------------------ tokenizing

def _tokenize(index: int) -> list[str]:
    return ablate._tokenize(index)   # message_tokens of ablate._raw[index], then the variant's filters


_cache: dict = {}


def tokenized(raw: list[bytes], variant: str, headers_override: str | None, jobs: int) -> tuple[list, TrainOptions]:
    """Each raw message's tokens under the variant, and its TrainOptions.
    Variants that differ only in training options share one tokenizing."""
    tokenizer_overrides, train_overrides, setups = {}, {}, []
    for part in variant.split("+"):
        more_tokenizer, more_train, setup = ablate.variant_overrides(part)
        tokenizer_overrides.update(more_tokenizer)
        train_overrides.update(more_train)
        setups += [(part, setup)] if setup else []
    if headers_override is not None:
        tokenizer_overrides["headers"] = TokenizerOptions.parse_headers(headers_override)
    key = (id(raw), repr(sorted(tokenizer_overrides.items())), tuple(name for name, _ in setups))
    if key in _cache:
        documents, tokenizer = _cache[key]
        return documents, TrainOptions(tokenizer=tokenizer, **train_overrides)
    base = TokenizerOptions()
    options = TokenizerOptions(**{"headers": base.headers, "stopwords": base.stopwords,
                                  "bigrams": base.bigrams, "fold_variants": base.fold_variants,
                                  **tokenizer_overrides})
    ablate._FILTERS[:] = [setup for _, setup in setups]
    ablate._options = options
    ablate._raw = raw
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            documents = pool.map(_tokenize, range(len(raw)), chunksize=64)
    finally:
        ablate._FILTERS[:] = []
    _cache[key] = (documents, options)
    return documents, TrainOptions(tokenizer=options, **train_overrides)


# ------------------------------------------------------------- measuring

def verdict_rates(labels, log_odds, verdicts) -> dict:
    labels = np.asarray(labels)
    verdicts = np.asarray(verdicts)
    ham, spam = verdicts[labels == HAM], verdicts[labels == SPAM]
    return {
        "roca": one_minus_roca_percent(labels.tolist(), list(log_odds)),
        "ham_lost": 100 * float((ham == "spam").mean()),
        "spam_flagged": 100 * float((spam == "spam").mean()),
        "unsure": 100 * float((verdicts == "unsure").mean()),
        "best_flagged": 100 - miss_at_fpr(labels.tolist(), list(log_odds), 0.001),
    }


def train_test(options, train_docs, train_labels, test_docs, test_labels) -> dict:
    model = fit_tokenized(train_docs, train_labels, options)
    scores = [model.score_tokens(doc) for doc in test_docs]
    return verdict_rates(test_labels, [s.log_odds for s in scores], [s.label for s in scores])


def online(options, docs, labels, thick: float | None = None) -> dict:
    """TREC immediate feedback from an empty model, as `classify` then `learn`.

    thick: None learns every message; a number learns only the messages
    whose raw score was on the wrong side of 0 or within `thick` of it
    (train on error with a thick threshold; 0 is plain train on error).
    """
    counts = TokenCounts()
    totals = np.zeros(2, dtype=np.int64)
    log_odds = []
    learned = 0
    for tokens, label in zip(docs, labels):
        score = raw_score_from_counts(counts, totals, tokens, options) if counts.messages.min() > 0 else 0.0
        log_odds.append(score)
        wrong = (score > 0) != (label == SPAM) or score == 0
        if thick is None or wrong or abs(score) < thick or counts.messages[label] < 10:
            counts.add([tokens], [label])
            totals[label] += len(tokens)
            learned += 1
    return {"roca": one_minus_roca_percent(list(labels), log_odds), "learned": learned}


def run_variant(variant: str, data: dict, jobs: int, protocols: list[str]) -> dict:
    """Every protocol for one variant."""
    parts = variant.split("+")
    thick = None  # learn=error (train on error) or learn=thick:X (and within X of the cutoff)
    for part in parts:
        if part.startswith("learn="):
            thick = 0.0 if part == "learn=error" else float(part.partition(":")[2])
    variant = "+".join(p for p in parts if not p.startswith("learn=")) or "baseline"
    results = {}
    documents, labels, options = {}, {}, {}
    for name, (raw, corpus_labels) in data.items():
        headers = "content" if name == "ccert_zh" else None  # its routing headers leak the label
        documents[name], options[name] = tokenized(raw, variant, headers, jobs)
        labels[name] = corpus_labels
    for protocol in protocols:
        started = time.perf_counter()
        if protocol in ("trec06p-time", "ccert_zh-time"):
            name = protocol.split("-")[0]
            docs, labs = documents[name], labels[name]
            if name == "trec06p":
                kept, held = range(int(len(docs) * 0.7)), range(int(len(docs) * 0.7), len(docs))
            else:  # the earlier 70 % of each class trains, the later 30 % tests
                kept, held = [], []
                for label in (HAM, SPAM):
                    of_class = [i for i, lab in enumerate(labs) if lab == label]
                    kept += of_class[: int(len(of_class) * 0.7)]
                    held += of_class[int(len(of_class) * 0.7):]
            result = train_test(options[name], [docs[i] for i in kept], [labs[i] for i in kept],
                                [docs[i] for i in held], [labs[i] for i in held])
        elif protocol == "sa-cv":
            docs, labs = documents["spamassassin"], labels["spamassassin"]
            pooled_labels, pooled_scores, pooled_verdicts, per_fold = [], [], [], []
            for fold in range(CV_FOLDS):
                held = [i for i in range(len(docs)) if i % CV_FOLDS == fold]
                kept = [i for i in range(len(docs)) if i % CV_FOLDS != fold]
                model = fit_tokenized([docs[i] for i in kept], [labs[i] for i in kept], options["spamassassin"])
                scores = [model.score_tokens(docs[i]) for i in held]
                per_fold.append(one_minus_roca_percent([labs[i] for i in held], [s.log_odds for s in scores]))
                pooled_labels += [labs[i] for i in held]
                pooled_scores += [s.log_odds for s in scores]
                pooled_verdicts += [s.label for s in scores]
            result = verdict_rates(pooled_labels, pooled_scores, pooled_verdicts)
            result["roca"] = float(np.mean(per_fold))  # pooled scores of different models rank unfairly
        elif protocol in ("sa->trec", "trec->sa"):
            source, target = ("spamassassin", "trec06p") if protocol == "sa->trec" else ("trec06p", "spamassassin")
            result = train_test(options[source], documents[source], labels[source],
                                documents[target], labels[target])
        elif protocol == "trec06p-online":
            result = online(options["trec06p"], documents["trec06p"][:ONLINE_MESSAGES],
                            labels["trec06p"][:ONLINE_MESSAGES], thick)
        else:
            raise SystemExit(f"unknown protocol {protocol!r}")
        result["seconds"] = time.perf_counter() - started
        results[protocol] = result
        extra = "".join(f", {key} {result[key]:.2f}" for key in ("ham_lost", "spam_flagged", "unsure",
                                                                  "best_flagged", "learned") if key in result)
        print(f"{'+'.join(parts):40s} {protocol:15s} 1-ROCA% {result['roca']:.3f}{extra} ({result['seconds']:.0f} s)",
              flush=True)
    return results


def needed_corpora(protocols: list[str]) -> list[str]:
    names = set()
    for protocol in protocols:
        names |= {"trec06p"} if "trec" in protocol else set()
        names |= {"spamassassin"} if "sa" in protocol.replace("trec06p", "") else set()
        names |= {"ccert_zh"} if "ccert" in protocol else set()
    return sorted(names)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", action="append", help="a bench/ablate.py variant (default: baseline)")
    parser.add_argument("--protocol", action="append", choices=PROTOCOLS, help="default: all")
    parser.add_argument("--jobs", type=int, default=multiprocessing.cpu_count())
    parser.add_argument("--json", help="write every figure to this file")
    args = parser.parse_args()
    variants = args.variant or ["baseline"]
    protocols = args.protocol or list(PROTOCOLS)
    data = {}
    for name in needed_corpora(protocols):
        started = time.perf_counter()
        items = training_part(name)
        data[name] = ([path.read_bytes() for _, path in items], [label for label, _ in items])
        print(f"# {name}: {len(items)} messages of its training part read in "
              f"{time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    table = {variant: run_variant(variant, data, args.jobs, protocols) for variant in variants}
    print("\nratio of 1-ROCA to the best variant per protocol (worst last):")
    print(f"{'variant':40s} " + " ".join(f"{p:>14s}" for p in protocols) + "   worst")
    for variant in variants:
        ratios = [table[variant][p]["roca"] / max(min(table[v][p]["roca"] for v in variants), 1e-9)
                  for p in protocols]
        print(f"{variant:40s} " + " ".join(f"{r:14.2f}" for r in ratios) + f"   {max(ratios):.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(table, indent=1))


if __name__ == "__main__":
    random.seed(1)
    main()
