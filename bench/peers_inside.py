"""bogofilter or CRM114 on bench/choose_defaults.py's protocols, inside the training parts.

choose_defaults.py compares spamnb variants with one another; this gives the
peers' figures on the same messages, so a variant's worst ratio to the best
peer can be read without looking at the test parts that bench/compare.py
reports.  Each tool runs as compare.py runs it (tool_*.py, identical bytes,
training in stream order: CRM114's DSTTTR depends on it).

    .venv/bin/python bench/peers_inside.py crm114 sa-cv ccert_zh-time
    .venv/bin/python bench/peers_inside.py bogofilter 'sa->trec'

Quote 'sa->trec' and 'trec->sa': unquoted, the shell reads > as a redirection.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import choose_defaults  # noqa: E402
import compare  # noqa: E402
import corpora  # noqa: E402
import tool_bogofilter  # noqa: E402
import tool_crm114  # noqa: E402

from spamnb.app.metrics import one_minus_roca_percent  # noqa: E402

TOOLS = {"crm114": tool_crm114, "bogofilter": tool_bogofilter}
PROTOCOLS = ("trec06p-time", "ccert_zh-time", "sa-cv", "sa->trec", "trec->sa")
_position: dict = {}


def in_stream_order(items):
    if not _position:
        for name in ("spamassassin", "ccert_zh", "trec06p"):
            for number, (_, path) in enumerate(corpora.stream(name)):
                _position[path] = number
    return sorted(items, key=lambda item: _position[item[1]])


def one_split(tool, train, test, headers: str) -> tuple[float, list[str]]:
    with tempfile.TemporaryDirectory() as root:
        job = compare.lay_out_split(Path(root) / "job", in_stream_order(train), test, headers)
        outcome = tool.split(job)
        scores = [outcome.neutral if score is None else score for score in outcome.scores]
        return one_minus_roca_percent([label for label, _ in test], scores), outcome.notes


def run(tool, protocol: str) -> float:
    if protocol == "sa-cv":  # choose_defaults' folds: position modulo 5 in the training part
        items = choose_defaults.training_part("spamassassin")
        folds = []
        for fold in range(choose_defaults.CV_FOLDS):
            held = [item for i, item in enumerate(items) if i % choose_defaults.CV_FOLDS == fold]
            kept = [item for i, item in enumerate(items) if i % choose_defaults.CV_FOLDS != fold]
            folds.append(one_split(tool, kept, held, "all")[0])
            print(f"  fold {fold}: 1-ROCA% {folds[-1]:.4f}", flush=True)
        return sum(folds) / len(folds)
    if protocol in ("trec06p-time", "ccert_zh-time"):
        name = protocol.split("-")[0]
        items = choose_defaults.training_part(name)
        if name == "trec06p":
            cut = int(len(items) * 0.7)
            kept, held = items[:cut], items[cut:]
        else:  # per class, as choose_defaults cuts it
            kept, held = [], []
            for label in (0, 1):
                of_class = [item for item in items if item[0] == label]
                cut = int(len(of_class) * 0.7)
                kept += of_class[:cut]
                held += of_class[cut:]
        return one_split(tool, kept, held, "content" if name == "ccert_zh" else "all")[0]
    source, target = ("spamassassin", "trec06p") if protocol == "sa->trec" else ("trec06p", "spamassassin")
    return one_split(tool, choose_defaults.training_part(source), choose_defaults.training_part(target), "all")[0]


def main() -> None:
    if len(sys.argv) < 3 or sys.argv[1] not in TOOLS or not set(sys.argv[2:]) <= set(PROTOCOLS):
        raise SystemExit(f"usage: peers_inside.py {'|'.join(TOOLS)} PROTOCOL... ({', '.join(PROTOCOLS)})")
    tool, results = TOOLS[sys.argv[1]], {}
    tool.version()
    for protocol in sys.argv[2:]:
        started = time.perf_counter()
        results[protocol] = run(tool, protocol)
        print(f"{sys.argv[1]} {protocol}: 1-ROCA% {results[protocol]:.4f} "
              f"({time.perf_counter() - started:.0f} s)", flush=True)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
