"""Measure what each tokenizer rule and model option does to accuracy.

For every corpus in ../shared/corpora: read each message once, then for each
variant tokenize (message_tokens(raw, options): decoding is in the core),
train on the 70 % split and report 1-ROCA % (lower is better) on the
held-out 30 %.  A variant changes one thing from the baseline
(the defaults); the rules in spamnb/text/tokens.py cite these numbers.

    python bench/ablate.py [--corpus NAME] [--variant NAME ...] [--jobs N] [--folds K]

Choose defaults with --folds (cross-validation inside the training part);
report with the plain 70/30 run, whose test part no choice has looked at.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpora  # noqa: E402

from spamnb import _core  # noqa: E402
from spamnb.app.metrics import miss_at_fpr, one_minus_roca_percent  # noqa: E402
from spamnb.model.options import TrainOptions  # noqa: E402
from spamnb.text.tokens import TokenizerOptions, message_tokens  # noqa: E402
from spamnb.learning.training import fit_tokenized  # noqa: E402


# The rules live in the Rust core (core/src/text/tokens.rs): a variant can
# only filter the tokens message_tokens gives, or add to them.  The variants
# that patched Python internals of the tokenizer (min-word-length,
# max-word-length, no-casefold, no-nfkc, no-rule) have no hook left: change
# the rule in the core, rebuild, and run `baseline`.
_FILTERS: list = []   # each (tokens, raw) -> tokens, applied in order


def _no_urls(tokens: list[str], raw: bytes) -> list[str]:
    return [t for t in tokens if not t.startswith("url:")]


def _no_attachment_tokens(tokens: list[str], raw: bytes) -> list[str]:
    return [t for t in tokens if not t.startswith("attach:")]


def _sparse_pairs(tokens: list[str], raw: bytes) -> list[str]:
    """Orthogonal sparse bigrams (CRM114's OSB) on top of the plain pairs:
    also each word with the word two and three places on, gaps marked."""
    _headers, _addresses, texts, *_ = _core.decode_message(raw, _options.wants_header)
    for text in texts:
        words = [w for w in _core.text_tokens(text, _options) if ":" not in w]
        for gap in (2, 3):
            tokens.extend(f"{a} {'_ ' * (gap - 1)}{b}" for a, b in zip(words, words[gap:]))
    return tokens


_IN_CORE = ("min-word-length", "max-word-length", "no-casefold", "no-nfkc", "no-rule")


# name -> (tokenizer options overrides, train options overrides, setup function)
VARIANTS = {
    "baseline": ({}, {}, None),
    "no-stopwords": ({"stopwords": frozenset()}, {}, None),
    "no-url-tokens": ({}, {}, _no_urls),
    "no-attachment-tokens": ({}, {}, _no_attachment_tokens),
    "osb": ({}, {}, _sparse_pairs),
}
def variant_overrides(name: str):
    """A named variant, or a setting: alpha=X, robinson=S, min-strength=X, normalize=none|sqrt|mean,
    top-k=K, bigrams, fold-variants, headers=SPEC."""
    if name in VARIANTS:
        return VARIANTS[name]
    key, _, value = name.partition("=")
    if key in _IN_CORE:
        raise SystemExit(f"variant {name!r}: that rule lives in the Rust core now (core/src/text/tokens.rs);"
                         " change it there, rebuild the core, and run the baseline")
    if key == "event-model":
        return {}, {"event_model": value}, None
    if key in ("alpha", "robinson", "min-strength", "retrain-margin"):
        key = key.replace("-", "_")
        return {}, {key: float(value)}, None
    if key == "normalize":
        return {}, {"normalize": value}, None
    if key in ("top-k", "chunk", "min-df", "max-features"):
        return {}, {key.replace("-", "_"): int(value)}, None
    if key == "bigrams":
        return {"bigrams": value != "no"}, {}, None
    if key == "fold-variants":
        return {"fold_variants": value != "no"}, {}, None
    if key == "headers":
        return {"headers": TokenizerOptions.parse_headers(value)}, {}, None
    raise SystemExit(f"unknown variant {name!r}; known: {', '.join(VARIANTS)} and settings "
                     "alpha=X, robinson=S, min-strength=X, normalize=..., top-k=K, bigrams=no, fold-variants=no,"
                     " headers=SPEC")


# Header variants that would read the routing headers of a corpus whose
# routing headers leak the label are not run on it.
LEAKY = {"ccert_zh": {"headers=all"}}

_raw: list[bytes] = []
_options: TokenizerOptions = TokenizerOptions()


def _tokenize(index: int) -> list[str]:
    tokens = message_tokens(_raw[index], _options)
    for keep in _FILTERS:
        tokens = keep(tokens, _raw[index])
    return tokens


def _train_and_score(options, documents, labels, train_ids, test_ids, verdicts=None, scored=None) -> float:
    """1-ROCA % on test_ids; with a `verdicts` dict, also the label rates at the default cutoffs.
    With a `scored` list, (label, log-odds, verdict) of each test message is appended to it."""
    # Verdicts at cutoffs need the calibrated probability `train` makes; 1-ROCA
    # alone does not (calibration is monotone), and skipping it keeps CV quick.
    model = fit_tokenized([documents[i] for i in train_ids], [labels[i] for i in train_ids], options,
                          calibrated=verdicts is not None)
    results = [model.score_tokens(documents[i]) for i in test_ids]
    truth = [labels[i] for i in test_ids]
    if scored is not None:
        scored.extend((t, r.log_odds, r.label) for r, t in zip(results, truth))
    if verdicts is not None:
        ham = [r.label for r, t in zip(results, truth) if t == 0]
        spam = [r.label for r, t in zip(results, truth) if t == 1]
        verdicts.update({
            "ham called spam %": 100 * ham.count("spam") / len(ham),
            "spam caught %": 100 * spam.count("spam") / len(spam),
            "unsure %": 100 * (ham.count("unsure") + spam.count("unsure")) / len(results),
            "spam caught at 0.1 % ham loss": 100 - miss_at_fpr(truth, [r.log_odds for r in results]),
        })
    return one_minus_roca_percent(truth, [r.log_odds for r in results])


def _pooled(scored: list) -> str:
    """Verdict rates and the ROC read at 0.1 % ham loss over every fold's held-out messages."""
    truth = [t for t, _, _ in scored]
    ham = [v for t, _, v in scored if t == 0]
    spam = [v for t, _, v in scored if t == 1]
    caught = 100 - miss_at_fpr(truth, [s for _, s, _ in scored])
    return (f"pooled: spam caught at 0.1 % ham loss {caught:.2f}; at tuned cutoffs ham called spam "
            f"{100 * ham.count('spam') / len(ham):.2f} ({ham.count('spam')}), spam caught "
            f"{100 * spam.count('spam') / len(spam):.2f}, unsure {100 * (ham.count('unsure') + spam.count('unsure')) / len(scored):.2f}")


def evaluate(name: str, variants: list[str], jobs: int, folds: int = 0,
             calibrated: bool = False) -> dict[str, float]:
    global _raw, _options
    train, test = corpora.split(name)
    started = time.perf_counter()
    if folds:
        test = []
    _raw = [path.read_bytes() for _, path in train + test]
    print(f"# {name}: {len(train)} train / {len(test)} test messages, read in "
          f"{time.perf_counter() - started:.1f} s", file=sys.stderr)
    labels = [label for label, _ in train + test]
    results = {}
    for variant in variants:
        if variant in LEAKY.get(name, ()):
            continue
        tokenizer_overrides, train_overrides, setups = {}, {}, []
        for part in variant.split("+"):  # "mixed+min-word-length=3" combines two variants
            more_tokenizer, more_train, setup = variant_overrides(part)
            tokenizer_overrides.update(more_tokenizer)
            train_overrides.update(more_train)
            setups += [setup] if setup else []
        _FILTERS[:] = setups
        base = TokenizerOptions(headers=TokenizerOptions.parse_headers(corpora.SETTINGS[name]["headers"]))
        _options = TokenizerOptions(**{"headers": base.headers, "stopwords": base.stopwords,
                                       "bigrams": base.bigrams, "fold_variants": base.fold_variants,
                                       **tokenizer_overrides})
        started = time.perf_counter()
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            documents = pool.map(_tokenize, range(len(_raw)), chunksize=64)
        options = TrainOptions(tokenizer=_options, **train_overrides)
        if folds:
            # Cross-validation inside the training part only: choosing
            # defaults here leaves the test part unseen for reporting.
            per_fold, scored = [], []
            for fold in range(folds):
                held = [i for i in range(len(train)) if i % folds == fold]
                kept = [i for i in range(len(train)) if i % folds != fold]
                per_fold.append(_train_and_score(options, documents, labels, kept, held,
                                                 {} if calibrated else None, scored))
            results[variant] = sum(per_fold) / folds
            spread = (sum((x - results[variant]) ** 2 for x in per_fold) / (folds - 1)) ** 0.5
            detail = f"mean of {folds} folds of the training part, sd {spread:.3f}"
            if calibrated:  # scores of different folds' models are comparable once calibrated
                detail += "; " + _pooled(scored)
        else:
            verdicts: dict[str, float] = {}
            results[variant] = _train_and_score(options, documents, labels, range(len(train)),
                                                range(len(train), len(documents)), verdicts)
            detail = "70/30 test split; at default cutoffs " + ", ".join(
                f"{key} {value:.2f}" for key, value in verdicts.items())
        print(f"{name:14s} {variant:32s} 1-ROCA% {results[variant]:.3f}  ({detail}; "
              f"{time.perf_counter() - started:.1f} s)", flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append", help="corpus name (default: all present)")
    parser.add_argument("--variant", action="append",
                        help=f"one of {', '.join(VARIANTS)}, or several joined by '+' (default: all)")
    parser.add_argument("--jobs", type=int, default=multiprocessing.cpu_count())
    parser.add_argument("--folds", type=int, default=0,
                        help="K-fold cross-validation inside the 70 %% training part (for choosing "
                             "defaults); without it, train on 70 %% and report on the unseen 30 %%")
    parser.add_argument("--calibrated", action="store_true",
                        help="with --folds: calibrate and tune cutoffs in each fold as `train` does, and "
                             "report verdict rates and spam caught at 0.1 %% ham loss over all folds")
    args = parser.parse_args()
    names = args.corpus or corpora.available()
    if not names:
        sys.exit(f"no corpora under {corpora.CORPORA}")
    for name in names:
        evaluate(name, args.variant or list(VARIANTS), args.jobs, args.folds, args.calibrated)


if __name__ == "__main__":
    main()
