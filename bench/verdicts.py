"""The verdicts a user sees on mail the model never saw, at the model's own cutoffs.

The accuracy bench (compare.py) ranks; this one reads the verdicts: for each
protocol, a model is trained as `spamnb train` trains it (or grown message by
message as `spamnb learn` grows it) on the past, and the mail that came after
is judged at the cutoffs the model stored.  Each row gives

    ham lost      % of the test ham called spam (what a user never gets back)
    spam flagged  % of the test spam called spam
    unsure        % of all test mail left in the unsure band
    best          % of the spam the best single cutoff losing <= 0.1 % of the
                  test ham would flag (hindsight: what the stored cutoff is
                  measured against)
    band          the width of the unsure band in P(spam)
    ECE           expected calibration error of P(spam), 10 equal bins

Protocols (delivery order wherever there is one):

    trec-5000 / trec-10000 / trec-14000
                  trec06p: train on the first N, test on every later message
                  (also per later block of 1,000, so drift shows)
    trec-14000+hard
                  the same, with spamassassin's 250 hard ham (newsletters,
                  spam-like ham) spread evenly through the training ham: the
                  cutoffs must not jump to the top of that tail
    zh-later      ccert_zh, content headers only (its routing headers give the
                  label away): the earlier 70 % of each class trains, the
                  later 30 % tests
    sa->trec / trec->sa
                  another server, four years apart: all of one corpus trains,
                  all of the other tests
    small-50 / small-300 / small-1000
                  trec06p's first N train, the next 5,000 test
    learn         `learn` from nothing on trec06p's stream, one message at a
                  time through the real learn code; after every 500 learned,
                  the next 500 are judged before they are learned

bogofilter (when installed) runs the same rows at its own default cutoffs
(spamicity >= 0.99 spam, <= 0.45 ham), on identical bytes.

    .venv/bin/python bench/verdicts.py [--protocol NAME ...] [--tool spamnb|bogofilter]
        [--json FILE] [--scores DIR] [--jobs 2]

`--scores DIR` keeps each spamnb row's test scores and the training mail's
held-out scores (npz), for fitting cutoff rules offline on the same figures.
"""

from __future__ import annotations

import argparse
import gzip
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpora  # noqa: E402

from spamnb.app.metrics import miss_at_fpr, one_minus_roca_percent  # noqa: E402
from spamnb.model.labels import HAM, SPAM  # noqa: E402
from spamnb.model.options import TrainOptions  # noqa: E402
from spamnb.text.tokens import TOKENIZER_VERSION, TokenizerOptions, message_tokens  # noqa: E402

PROTOCOLS = ("trec-5000", "trec-10000", "trec-14000", "trec-14000+hard", "zh-later", "sa->trec", "trec->sa",
             "small-50", "small-300", "small-1000", "learn")
SMALL_TEST = 5000
LEARN_MESSAGES = 5000
LEARN_STEP = 500
CACHE = Path(os.environ.get("SPAMNB_BENCH_CACHE", Path(tempfile.gettempdir()) / "spamnb-verdicts-cache"))


# ------------------------------------------------------------------ mail

_headers = "all"


def _tokenize(path: str) -> list[str]:
    options = TokenizerOptions(headers=TokenizerOptions.parse_headers(_headers))
    return message_tokens(Path(path).read_bytes(), options)


def reader_digest() -> str:
    """A digest of the code that turns bytes into tokens (the core, where decoding
    and tokenizing run, and spamnb/mail, spamnb/text): a decoding fix changes
    tokens without a new TOKENIZER_VERSION."""
    import hashlib

    digest = hashlib.blake2b(str(TOKENIZER_VERSION).encode(), digest_size=8)
    import spamnb

    package = Path(spamnb.__file__).resolve().parent  # the spamnb this run imports
    for path in sorted([*package.glob("_core*.so"), *package.glob("_core*.pyd"), *package.glob("mail/*.py"),
                        *package.glob("text/*.py"), *package.glob("data/*.txt")]):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def tokens_of(name: str, items: list[tuple[int, Path]], headers: str, jobs: int) -> list[list[str]]:
    """Each message's tokens (cached per corpus, header setting and reading code)."""
    global _headers
    cache = CACHE / f"{name}-{headers}-{reader_digest()}.json.gz"
    paths = [str(path) for _, path in items]
    stored = json.loads(gzip.decompress(cache.read_bytes())) if cache.exists() else {}
    if all(path in stored for path in paths):
        return [stored[path] for path in paths]
    paths_wanted, paths = paths, [path for path in paths if path not in stored]
    _headers = headers
    started = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        documents = pool.map(_tokenize, paths, chunksize=32)
    print(f"# {name} ({headers} headers): {len(paths)} messages tokenized in "
          f"{time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    stored.update(zip(paths, documents))
    CACHE.mkdir(parents=True, exist_ok=True)
    cache.write_bytes(gzip.compress(json.dumps(stored).encode(), 1))
    return [stored[path] for path in paths_wanted]


def spread(main: list, extra: list) -> list:
    """`extra` spread evenly through `main`, each kept in its order."""
    keyed = [((i + 0.5) / len(main), 0, item) for i, item in enumerate(main)]
    keyed += [((i + 0.5) / len(extra), 1, item) for i, item in enumerate(extra)]
    return [item for *_, item in sorted(keyed, key=lambda key: key[:2])]


def protocol_parts(protocol: str) -> tuple[str, list, list]:
    """(headers, training items, test items) of a train-then-test protocol."""
    trec = corpora.load_index("trec06p")
    if protocol.startswith("trec-") and protocol[5].isdigit():
        n = int(protocol.split("-")[1].split("+")[0])
        train, test = trec[:n], trec[n:]
        if protocol.endswith("+hard"):
            hard = [item for item in corpora.load_index("spamassassin") if "hard_ham" in item[1].name]
            ham = spread([item for item in train if item[0] == HAM], hard)
            spam = [item for item in train if item[0] == SPAM]
            train = corpora.interleave(ham + spam)
        return "all", train, test
    if protocol.startswith("small-"):
        n = int(protocol.split("-")[1])
        return "all", trec[:n], trec[n:n + SMALL_TEST]
    if protocol == "zh-later":
        train, test = [], []
        for label in (HAM, SPAM):
            of_class = [item for item in corpora.load_index("ccert_zh") if item[0] == label]
            cut = int(len(of_class) * 0.7)
            train += of_class[:cut]
            test += of_class[cut:]
        return "content", corpora.interleave(train), test
    sa = corpora.load_index("spamassassin")
    if protocol == "sa->trec":
        return "all", corpora.stream("spamassassin"), trec
    if protocol == "trec->sa":
        return "all", trec, sa
    raise SystemExit(f"unknown protocol {protocol!r}")


def corpus_of(path: Path) -> str:
    return path.parent.parent.name


def documents_for(items: list, headers: str, jobs: int) -> list[list[str]]:
    by_corpus: dict[str, list] = {}
    for item in items:
        by_corpus.setdefault(corpus_of(item[1]), []).append(item)
    found = {}
    for name, of_corpus in by_corpus.items():
        for (_, path), document in zip(of_corpus, tokens_of(name, of_corpus, headers, jobs)):
            found[path] = document
    return [found[path] for _, path in items]


# --------------------------------------------------------------- figures

def verdict_figures(labels, log_odds, verdicts, probabilities=None, cutoffs=None) -> dict:
    labels = np.asarray(labels)
    verdicts = np.asarray(verdicts)
    scores = np.asarray([0.0 if s is None else s for s in log_odds], dtype=np.float64)
    ham, spam = verdicts[labels == HAM], verdicts[labels == SPAM]
    out = {
        "messages": int(len(labels)), "ham": int(len(ham)), "spam": int(len(spam)),
        "roca": one_minus_roca_percent(labels.tolist(), scores.tolist()),
        "ham_lost": 100 * float((ham == "spam").mean()) if len(ham) else 0.0,
        "ham_lost_n": int((ham == "spam").sum()),
        "spam_flagged": 100 * float((spam == "spam").mean()) if len(spam) else 0.0,
        "spam_missed": 100 * float((spam == "ham").mean()) if len(spam) else 0.0,
        "unsure": 100 * float((verdicts == "unsure").mean()),
        "unsure_ham": 100 * float((ham == "unsure").mean()) if len(ham) else 0.0,
        "unsure_spam": 100 * float((spam == "unsure").mean()) if len(spam) else 0.0,
        "best": (100 - miss_at_fpr(labels.tolist(), scores.tolist(), 0.001)) if len(ham) and len(spam) else None,
    }
    if probabilities is not None:
        out.update(reliability(labels, np.asarray(probabilities, dtype=np.float64)))
    if cutoffs is not None:
        out["cutoffs"] = {"spam": cutoffs[0], "ham": cutoffs[1]}
        out["band"] = cutoffs[0] - cutoffs[1]
    return out


def reliability(labels: np.ndarray, probabilities: np.ndarray, bins: int = 10) -> dict:
    """10 equal bins of P(spam): messages, mean P and share of spam in each;
    ECE is the message-weighted mean |share − mean P|."""
    which = np.minimum((probabilities * bins).astype(int), bins - 1)
    table, ece = [], 0.0
    for b in range(bins):
        members = which == b
        n = int(members.sum())
        if n:
            mean_p, share = float(probabilities[members].mean()), float(labels[members].mean())
            ece += n * abs(share - mean_p)
            table.append([b, n, round(mean_p, 4), round(share, 4)])
        else:
            table.append([b, 0, None, None])
    return {"ece": ece / max(len(labels), 1), "reliability": table}


def blocks_of(labels, log_odds, verdicts, size: int = 1000) -> list[dict]:
    return [verdict_figures(labels[i:i + size], log_odds[i:i + size], verdicts[i:i + size])
            for i in range(0, len(labels), size) if len(labels[i:i + size]) >= size // 2]


# ---------------------------------------------------------------- spamnb

def spamnb_split(protocol: str, jobs: int, scores_dir: Path | None) -> dict:
    from spamnb.learning.training import fit_tokenized

    headers, train, test = protocol_parts(protocol)
    train_docs = documents_for(train, headers, jobs)
    test_docs = documents_for(test, headers, jobs)
    options = TrainOptions(tokenizer=TokenizerOptions(headers=TokenizerOptions.parse_headers(headers)))
    started = time.perf_counter()
    model = fit_tokenized(train_docs, [label for label, _ in train], options)
    trained = time.perf_counter() - started
    scores = [model.score_tokens(doc) for doc in test_docs]
    labels = np.array([label for label, _ in test])
    log_odds = [s.log_odds for s in scores]
    verdicts = [s.label for s in scores]
    result = verdict_figures(labels, log_odds, verdicts, [s.probability for s in scores],
                             (model.cutoffs.spam, model.cutoffs.ham))
    result["seconds"] = {"train": trained, "classify": time.perf_counter() - started - trained}
    if protocol.startswith("trec-") and protocol[5].isdigit():
        result["blocks"] = blocks_of(labels, log_odds, verdicts)
    if scores_dir is not None:
        scores_dir.mkdir(parents=True, exist_ok=True)
        rule = model.rule
        held = getattr(model, "held_out_log_odds", None)
        np.savez(scores_dir / f"{protocol.replace('>', '')}.npz",
                 test_raw=np.array([s.raw for s in scores]),  # NaN: no evidence
                 test_known=np.array([s.tokens_known for s in scores]), test_labels=labels,
                 held_raw=np.zeros(0) if held is None else (held - rule.offset) / rule.scale,
                 held_labels=np.array([train[i][0] for i in calibration_sample(len(train))]),
                 scale=rule.scale, offset=rule.offset, cutoffs=np.array([model.cutoffs.spam, model.cutoffs.ham]))
    return result


def calibration_sample(n: int) -> list[int]:
    """The training messages `train` holds out for calibration, in reading order."""
    from spamnb.learning.training import CALIBRATION_SAMPLE, Reservoir

    reservoir = Reservoir(CALIBRATION_SAMPLE)
    for index in range(n):
        reservoir.offer(index)
    return sorted(reservoir.items)


def spamnb_learn(jobs: int) -> dict:
    """`learn` from nothing, a message at a time, through learn_file."""
    from spamnb.learning.incremental import learn_file
    from spamnb.model.opening import open_scorer

    stream = corpora.load_index("trec06p")[:LEARN_MESSAGES]
    labels, log_odds, verdicts, probabilities, checkpoints = [], [], [], [], []
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "learned.spamnb")
        for start in range(0, len(stream), LEARN_STEP):
            batch = stream[start:start + LEARN_STEP]
            if start:
                scorer = open_scorer(path)
                scores = [scorer.score_message(p.read_bytes()) for _, p in batch]
                labels += [label for label, _ in batch]
                log_odds += [s.log_odds for s in scores]
                verdicts += [s.label for s in scores]
                probabilities += [s.probability for s in scores]
                part = verdict_figures([label for label, _ in batch], [s.log_odds for s in scores],
                                       [s.label for s in scores], None,
                                       (scorer.cutoffs.spam, scorer.cutoffs.ham))
                part["learned"] = start
                checkpoints.append(part)
                print(f"  learn: after {start}: band {part['band']:.3f} ham lost {part['ham_lost']:.2f} "
                      f"flagged {part['spam_flagged']:.1f} unsure {part['unsure']:.1f}", file=sys.stderr, flush=True)
            for label, message in batch:
                learn_file(path, spam=[str(message)] if label == SPAM else [],
                           ham=[str(message)] if label == HAM else [])
    result = verdict_figures(np.array(labels), log_odds, verdicts, probabilities)
    result["checkpoints"] = checkpoints
    result["band"] = min(part["band"] for part in checkpoints)
    return result


# ------------------------------------------------------------ bogofilter

def bogofilter_split(protocol: str) -> dict:
    import tool_bogofilter
    from compare import lay_out_split

    headers, train, test = protocol_parts(protocol)
    with tempfile.TemporaryDirectory() as folder:
        outcome = tool_bogofilter.split(lay_out_split(Path(folder), train, test, headers))
    labels = np.array([label for label, _ in test])
    result = verdict_figures(labels, outcome.scores, outcome.verdicts, None, (0.99, 0.45))
    if protocol.startswith("trec-") and protocol[5].isdigit():
        result["blocks"] = blocks_of(labels, outcome.scores, outcome.verdicts)
    return result


def bogofilter_learn() -> dict:
    """bogofilter from nothing: after every 500 registered, the next 500 judged."""
    import tool_bogofilter

    stream = corpora.load_index("trec06p")[:LEARN_MESSAGES]
    labels, scores, verdicts, checkpoints = [], [], [], []
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "db"
        database.mkdir()
        command = ["bogofilter", "-C", "-d", str(database)]
        for start in range(0, len(stream), LEARN_STEP):
            batch = stream[start:start + LEARN_STEP]
            names = "".join(f"{path}\n" for _, path in batch)
            if start:
                from toolkit import run

                verdict_run = run(command + ["-T", "-b"], names, ok=(0, 1, 2, 3))
                terse = tool_bogofilter.parse_terse(verdict_run.stdout)
                got = [terse.get(path.name) or terse.get(str(path)) for _, path in batch]
                batch_verdicts = [g[1] if g else "unsure" for g in got]
                batch_scores = [g[0] if g else None for g in got]
                part = verdict_figures([label for label, _ in batch], batch_scores, batch_verdicts, None,
                                       (0.99, 0.45))
                part["learned"] = start
                checkpoints.append(part)
                labels += [label for label, _ in batch]
                scores += batch_scores
                verdicts += batch_verdicts
            from toolkit import run

            spam = "".join(f"{path}\n" for label, path in batch if label == SPAM)
            ham = "".join(f"{path}\n" for label, path in batch if label == HAM)
            run(command + ["-s", "-b"], spam)
            run(command + ["-n", "-b"], ham)
    result = verdict_figures(np.array(labels), scores, verdicts, None, (0.99, 0.45))
    result["checkpoints"] = checkpoints
    return result


# ------------------------------------------------------------------ main

def line(tool: str, protocol: str, r: dict) -> str:
    best = "–" if r.get("best") is None else f"{r['best']:.1f}"
    band = f"{r['band']:.3f}" if "band" in r else "–"
    ece = f"{r['ece']:.3f}" if "ece" in r else "–"
    cut = (f"{r['cutoffs']['ham']:.4f}/{r['cutoffs']['spam']:.4f}" if "cutoffs" in r else "–")
    return (f"{tool:10s} {protocol:16s} ham lost {r['ham_lost']:5.2f} % ({r['ham_lost_n']:3d})  "
            f"flagged {r['spam_flagged']:5.1f} %  best {best:>5s}  unsure {r['unsure']:5.1f} % "
            f"(ham {r['unsure_ham']:.1f} / spam {r['unsure_spam']:.1f})  band {band}  cutoffs {cut}  "
            f"ECE {ece}  1-ROCA {r['roca']:.3f}")


def markdown(results: dict) -> str:
    """The figures as BENCHMARKS.md shows them."""
    out = ["| protocol | tool | ham lost | spam flagged | best at ≤ 0.1 % ham lost | unsure (ham / spam) "
           "| cutoffs ham / spam | ECE | 1-ROCA % |", "|---|---|---:|---:|---:|---|---|---:|---:|"]
    for protocol, tools in results.items():
        for tool, r in tools.items():
            best = "–" if r.get("best") is None else f"{r['best']:.1f} %"
            cut = f"{r['cutoffs']['ham']:.3g} / {r['cutoffs']['spam']:.4g}" if "cutoffs" in r else (
                f"band ≥ {r['band']:.3f}" if "band" in r else "–")
            ece = f"{r['ece']:.3f}" if "ece" in r else "–"
            out.append(f"| {protocol} | {tool} | {r['ham_lost']:.2f} % ({r['ham_lost_n']}) | {r['spam_flagged']:.1f} % "
                       f"| {best} | {r['unsure']:.1f} % ({r['unsure_ham']:.1f} / {r['unsure_spam']:.1f}) | {cut} "
                       f"| {ece} | {r['roca']:.3f} |")
    for protocol, tools in results.items():
        for tool, r in tools.items():
            if r.get("blocks"):
                out += ["", f"{protocol}, {tool}, per later block of 1,000 messages (ham lost % / spam flagged % / "
                        "unsure %):", "", " ".join(f"{b['ham_lost']:.1f}/{b['spam_flagged']:.0f}/{b['unsure']:.0f}"
                                                  for b in r["blocks"])]
            if r.get("checkpoints"):
                out += ["", f"{protocol}, {tool}: the next 500 after N learned (N: band, ham lost %, spam flagged %, "
                        "unsure %):", "", "; ".join(
                            f"{c['learned']}: {c.get('band', 0):.2f}, {c['ham_lost']:.1f}, {c['spam_flagged']:.0f}, "
                            f"{c['unsure']:.0f}" for c in r["checkpoints"])]
    out += ["", "Reliability (10 equal bins of P(spam): messages, mean P, share that is spam):", ""]
    out += ["| protocol | ECE | " + " | ".join(f"{b / 10:.1f}–{(b + 1) / 10:.1f}" for b in range(10)) + " |",
            "|---|---:|" + "---|" * 10]
    for protocol, tools in results.items():
        r = tools.get("spamnb", {})
        if "reliability" in r:
            cells = [f"{n}: {p:.2f} → {share:.2f}" if n else "0" for _, n, p, share in r["reliability"]]
            out.append(f"| {protocol} | {r['ece']:.3f} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--protocol", action="append", choices=PROTOCOLS, help="default: all")
    parser.add_argument("--tool", action="append", choices=("spamnb", "bogofilter"), help="default: both")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", help="write every figure here")
    parser.add_argument("--scores", help="keep spamnb's test and held-out scores here (npz a row)")
    parser.add_argument("--markdown", metavar="JSON", help="print the tables of an earlier --json run, run nothing")
    args = parser.parse_args()
    if args.markdown:
        print(markdown(json.loads(Path(args.markdown).read_text())))
        return
    protocols = args.protocol or list(PROTOCOLS)
    tools = args.tool or ["spamnb", "bogofilter"]
    if "bogofilter" in tools and shutil.which("bogofilter") is None:
        print("# bogofilter: not installed (apt-get install bogofilter); its rows are skipped", file=sys.stderr)
        tools.remove("bogofilter")
    results: dict = {}
    for protocol in protocols:
        for tool in tools:
            started = time.perf_counter()
            if tool == "spamnb":
                r = spamnb_learn(args.jobs) if protocol == "learn" else spamnb_split(
                    protocol, args.jobs, Path(args.scores) if args.scores else None)
            else:
                r = bogofilter_learn() if protocol == "learn" else bogofilter_split(protocol)
            r["wall"] = time.perf_counter() - started
            results.setdefault(protocol, {})[tool] = r
            print(line(tool, protocol, r), flush=True)
            if args.json:
                Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
