"""The accuracy bench: spamnb against bogofilter, CRM114 and scikit-learn's
MultinomialNB, judged the way mail arrives.

Every protocol runs every tool on identical message bytes, written under a
temporary directory with neutral numbered names (no tool can read a label
off a path):

  trec06p-split        all headers; train on the first 70 % of trec06p's index
                       by position (messages 0..13,999), test on the rest, in order
  trec06p-online       all headers; TREC immediate feedback from an empty model:
                       each message in index order is scored, then learned
  spamassassin-split   all headers; 70/30 per class after a seeded shuffle
                       (bench/corpora.py's split, seed 1)
  spamassassin-online  all headers; the whole corpus in one seeded shuffle (seed 1)
  ccert_zh-split       content headers; the first 70 % of its stream by position
  ccert_zh-online      content headers; its stream in order
  cross-sa-trec        all headers; train on all of spamassassin, test on
                       trec06p's last 30 %
  cross-trec-sa        all headers; train on all of trec06p, test on all of
                       spamassassin

An online row takes the first --online-limit messages of the stream (by
default 3,000 for trec06p and fewer for the others: ONLINE_LIMITS says why).
ccert_zh's stream is its two classes merged by relative position (see
bench/corpora.py's stream: its index holds all ham before all spam), and it
is never given routing headers: its Received/Date/Message-ID give the label
away, so its copies keep only Subject, From, To, Cc, Reply-To,
MIME-Version and Content-* fields.

The tools (bench/tool_*.py say exactly how each is run):

- spamnb through its command line with its defaults (plus --spamnb-args,
  repeatable: one column per configuration; `--headers content` is added
  on the ccert_zh rows); online through `spamnb classify` and `spamnb
  learn` per message, from no model file;
- bogofilter, fresh database, no config file;
- CRM114's standard mailreaver.crm / mailtrainer.crm with Debian's
  mailfilter.cf (OSB unique microgroom, DSTTTR training);
- scikit-learn MultinomialNB (CountVectorizer to split, HashingVectorizer
  with partial_fit online).

Reported per row and tool: 1-ROCA %, lam %, the verdicts at the tool's own
cutoffs, the spam caught at the best cutoff losing at most 0.1 % of the
ham, and wall-clock seconds; then each spamnb configuration's worst ratio of
its 1-ROCA to the best peer's.  --json keeps every score.

    .venv/bin/python bench/compare.py [--protocol NAME ...] [--tool NAME ...]
        [--spamnb-args "ARGS" ...] [--online-limit N] [--json PATH] [--write]

--write replaces the part of BENCHMARKS.md between <!-- compare:start --> and
<!-- compare:end --> with the tables, the machine and the command.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import shlex
import shutil
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpora  # noqa: E402
import tool_bogofilter  # noqa: E402
import tool_crm114  # noqa: E402
import tool_sklearn  # noqa: E402
import tool_spamnb  # noqa: E402
from benchmarks_file import publish, reproduce  # noqa: E402
from toolkit import Item, OnlineJob, Outcome, Skip, SplitJob, machine  # noqa: E402

from spamnb.app.metrics import lam_percent, miss_at_fpr, one_minus_roca_percent  # noqa: E402

# bench/perf.py and bench/profile.py use these through this module.
from corpora import write_message  # noqa: E402,F401
from tool_bogofilter import ensure_bogofilter  # noqa: E402,F401
from tool_sklearn import versions as sklearn_versions  # noqa: E402,F401
from toolkit import names  # noqa: E402,F401

ROOT = Path(__file__).resolve().parents[1]

# Per-message command-line calls make the online rows the slow part: each
# `spamnb learn` costs 0.35-0.45 s even on a tiny model (most of it imports)
# and each classify 0.07-0.1 s (Chinese more), about twice that when the two
# cores are busy with other work.  3,000 trec06p messages take spamnb alone
# 25-50 minutes, the split rows 12-25 in all, so the other online rows
# default to 500 messages (about 5-12 minutes each, every tool).
ONLINE_LIMITS = {"trec06p": 3000, "spamassassin": 500, "ccert_zh": 500}


# ------------------------------------------------------------- protocols

Sources = list[tuple[int, Path]]


def first_part(name: str, share: float = 0.7) -> tuple[Sources, Sources]:
    """The first 70 % of a corpus's stream by position, and the rest."""
    items = corpora.stream(name)
    cut = int(len(items) * share)
    return items[:cut], items[cut:]


def spamassassin_split() -> tuple[Sources, Sources]:
    """bench/corpora.py's per-class split (seed 1), each part in stream order
    (the order CRM114 trains in; the others do not depend on it)."""
    train, test = corpora.split("spamassassin")
    position = {path: number for number, (_, path) in enumerate(corpora.stream("spamassassin"))}
    return sorted(train, key=lambda item: position[item[1]]), sorted(test, key=lambda item: position[item[1]])


@dataclass(frozen=True)
class Protocol:
    key: str
    title: str
    kind: str                   # "split" or "online"
    headers: str                # "all" or "content"
    needs: tuple[str, ...]      # the corpora it reads
    split: Callable[[], tuple[Sources, Sources]] | None = None
    describe: str = ""

    def stream(self, limit: int | None) -> Sources:
        name = self.needs[0]
        return corpora.stream(name)[:limit or ONLINE_LIMITS[name]]


PROTOCOLS = [
    Protocol("trec06p-split", "trec06p split", "split", "all", ("trec06p",), lambda: first_part("trec06p"),
             "the first 70 % of the index trains, the last 30 % tests"),
    Protocol("trec06p-online", "trec06p online", "online", "all", ("trec06p",),
             describe="index order, from an empty model"),
    Protocol("spamassassin-split", "spamassassin split", "split", "all", ("spamassassin",), spamassassin_split,
             "70/30 per class after a seeded shuffle (seed 1)"),
    Protocol("spamassassin-online", "spamassassin online", "online", "all", ("spamassassin",),
             describe="one seeded shuffle of the whole corpus (seed 1), from an empty model"),
    Protocol("ccert_zh-split", "ccert_zh split", "split", "content", ("ccert_zh",), lambda: first_part("ccert_zh"),
             "the first 70 % of the stream trains, the rest tests"),
    Protocol("ccert_zh-online", "ccert_zh online", "online", "content", ("ccert_zh",),
             describe="stream order, from an empty model"),
    Protocol("cross-sa-trec", "cross sa→trec", "split", "all", ("spamassassin", "trec06p"),
             lambda: (corpora.stream("spamassassin"), first_part("trec06p")[1]),
             "all of spamassassin trains, trec06p's last 30 % tests"),
    Protocol("cross-trec-sa", "cross trec→sa", "split", "all", ("trec06p", "spamassassin"),
             lambda: (corpora.stream("trec06p"), corpora.stream("spamassassin")),
             "all of trec06p trains, all of spamassassin tests"),
]
BY_KEY = {protocol.key: protocol for protocol in PROTOCOLS}


# ------------------------------------------------------------------ tools

@dataclass(frozen=True)
class Tool:
    key: str            # unique per column: spamnb configurations are spamnb, spamnb-2, ...
    kind: str           # spamnb, bogofilter, crm114, sklearn
    title: str
    extra: tuple[str, ...] = ()

    @property
    def module(self):
        return {"spamnb": tool_spamnb, "bogofilter": tool_bogofilter, "crm114": tool_crm114,
                "sklearn": tool_sklearn}[self.kind]

    def run(self, job) -> Outcome:
        runner = getattr(self.module, "split" if isinstance(job, SplitJob) else "online")
        return runner(job, list(self.extra)) if self.kind == "spamnb" else runner(job)


PEERS = {"bogofilter": "bogofilter", "crm114": "CRM114", "sklearn": "sklearn MNB"}
TOOL_KINDS = ["spamnb", *PEERS]


def tools_for(kinds: list[str], spamnb_args: list[str]) -> list[Tool]:
    tools = []
    for kind in kinds:
        if kind != "spamnb":
            tools.append(Tool(kind, kind, PEERS[kind]))
            continue
        for number, args in enumerate(spamnb_args or [""], 1):
            title = f"spamnb {args.strip()}".strip()
            tools.append(Tool("spamnb" if number == 1 else f"spamnb-{number}", "spamnb", title,
                              tuple(shlex.split(args))))
    return tools


# ----------------------------------------------------------- the messages

def lay_out_split(root: Path, train: Sources, test: Sources, headers: str) -> SplitJob:
    job = SplitJob(root, [], [], headers == "content")
    for folder in (job.spam_dir, job.ham_dir, job.test_dir):
        folder.mkdir(parents=True)
    # Numbered by position: the training order is the order of the names.
    for number, (label, source) in enumerate(train):
        target = (job.spam_dir if label else job.ham_dir) / f"{number:06d}"
        corpora.write_message(source, target, headers)
        job.train.append(Item(label, target))
    for number, (label, source) in enumerate(test):
        target = job.test_dir / f"{number:06d}"
        corpora.write_message(source, target, headers)
        job.test.append(Item(label, target))
    return job


def lay_out_online(root: Path, stream: Sources, headers: str, title: str) -> OnlineJob:
    job = OnlineJob(root, [], headers == "content", title)
    (root / "stream").mkdir(parents=True)
    for number, (label, source) in enumerate(stream):
        target = root / "stream" / f"{number:06d}"
        corpora.write_message(source, target, headers)
        job.stream.append(Item(label, target))
    return job


def message_id(source: Path) -> str:
    """corpus/label/file: where the message is in the shared corpora (for --json)."""
    return source.relative_to(corpora.CORPORA).as_posix()


# --------------------------------------------------------------- measures

@dataclass
class Result:
    labels: list[int]
    outcome: Outcome
    measures: dict = field(default_factory=dict)

    @property
    def scores(self) -> list[float]:
        return [self.outcome.neutral if s is None else s for s in self.outcome.scores]


def measure(labels: list[int], scores: list[float], verdicts: list[str]) -> dict:
    """Every figure of a row's cell.

    lam % is TREC's logistic average misclassification at the tool's own
    verdicts, read as a binary filter reads them: a message is filed as spam
    or not, so unsure counts as ham (unsure ham is not lost, unsure spam is
    missed), as `spamnb evaluate` computes it (spamnb.app.metrics).
    """
    n_spam = sum(labels)
    n_ham = len(labels) - n_spam

    def share(label, verdict):
        count = sum(1 for l, v in zip(labels, verdicts) if l == label and v == verdict)
        return 100.0 * count / (n_spam if label else n_ham)

    ham_as_spam, spam_as_spam = share(0, "spam"), share(1, "spam")
    return {
        "one_minus_roca_percent": one_minus_roca_percent(labels, scores),
        "lam_percent": float(lam_percent(ham_as_spam / 100, 1 - spam_as_spam / 100, n_ham, n_spam)),
        "ham_as_spam_percent": ham_as_spam,
        "spam_as_spam_percent": spam_as_spam,
        "unsure_ham_percent": share(0, "unsure"),
        "unsure_spam_percent": share(1, "unsure"),
        "spam_caught_at_best_cutoff_percent": 100.0 - miss_at_fpr(labels, scores, 0.001),
        "messages": {"spam": n_spam, "ham": n_ham},
    }


def alternative_notes(result: Result) -> list[str]:
    notes = []
    for what, (scores, neutral) in result.outcome.alternatives.items():
        scores = [neutral if s is None else s for s in scores]
        notes.append(f"1-ROCA {one_minus_roca_percent(result.labels, scores):.3f} on {what}, where the best "
                     "cutoff losing at most 0.1 % of the ham catches "
                     f"{100 - miss_at_fpr(result.labels, scores, 0.001):.1f} % of the spam")
    return notes


def plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def run_cell(tool: Tool, job, labels: list[int], title: str):
    """A Result, or the text of a failed cell."""
    print(f"[{title}] {tool.title}: running", file=sys.stderr, flush=True)
    try:
        outcome = tool.run(job)
        result = Result(labels, outcome)
        result.measures = measure(labels, result.scores, outcome.verdicts)
        # Online, the first message comes before any training: no tool can score it.
        unscored = sum(s is None for s in outcome.scores[isinstance(job, OnlineJob):])
        if unscored:
            outcome.notes.append(f"{plural(unscored, 'message')} unscored (counted at the neutral score "
                                 f"{outcome.neutral:g}, verdict unsure)")
        outcome.notes.extend(alternative_notes(result))
    except Exception as error:
        traceback.print_exc(file=sys.stderr)
        print(f"[{title}] {tool.title}: error: {error}", file=sys.stderr, flush=True)
        return f"error: {str(error).splitlines()[0][:200] if str(error) else type(error).__name__}"
    m = result.measures
    print(f"[{title}] {tool.title}: 1-ROCA {m['one_minus_roca_percent']:.3f} %, lam {m['lam_percent']:.2f} %, "
          f"{seconds_text(outcome.seconds)}", file=sys.stderr, flush=True)
    for note in outcome.notes:
        print(f"[{title}] {tool.title}:   {note}", file=sys.stderr)
    return result


def seconds_text(seconds: dict[str, float]) -> str:
    if "total" in seconds:
        return f"{seconds['total']:.0f} s"
    return f"train {seconds['train']:.1f} s + classify {seconds['classify']:.1f} s"


def worst_ratios(rows, tools, cells) -> list[str]:
    """Per spamnb configuration: the largest ratio of its 1-ROCA to the best
    peer's over the rows run (above 1: a peer ranked the mail better)."""
    lines = []
    peers = [tool for tool in tools if tool.kind != "spamnb"]
    for tool in tools:
        if tool.kind != "spamnb":
            continue
        ratios = []
        for protocol in rows:
            own = cells.get((protocol.key, tool.key))
            others = [cells.get((protocol.key, peer.key)) for peer in peers]
            others = [(cell.measures["one_minus_roca_percent"], peer) for cell, peer in zip(others, peers)
                      if isinstance(cell, Result)]
            if not isinstance(own, Result) or not others:
                continue
            best, best_peer = min(others, key=lambda pair: pair[0])
            mine = own.measures["one_minus_roca_percent"]
            ratio = (1.0 if mine == 0 else math.inf) if best == 0 else mine / best
            ratios.append((ratio, protocol, best_peer, mine, best))
        if not ratios:
            lines.append(f"- {tool.title}: no row with both it and a peer")
            continue
        ratio, protocol, peer, mine, best = max(ratios, key=lambda entry: entry[0])
        lines.append(f"- **{tool.title}: worst ratio {ratio:.2f}** ({protocol.title}: 1-ROCA {mine:.3f} against "
                     f"{peer.title}'s {best:.3f}); over {plural(len(ratios), 'row')}, "
                     f"{sum(r > 1 for r, *_ in ratios)} with a peer ahead")
    return lines


# ----------------------------------------------------------------- report

def worst_ratio_section(rows, tools, cells) -> list[str]:
    if not any(tool.kind == "spamnb" for tool in tools) or len({tool.kind for tool in tools}) < 2:
        return []
    return ["Worst ratio of spamnb's 1-ROCA to the best peer's, over the rows above (above 1: a peer "
            "ranked the mail better):", "", *worst_ratios(rows, tools, cells), ""]


def cell_text(cell, show) -> str:
    if isinstance(cell, Result):
        return show(cell)
    return "–" if cell in (None, "skipped") else "error"


def summary_table(rows, tools, cells) -> str:
    lines = ["| protocol | " + " | ".join(tool.title for tool in tools) + " |",
             "|---|" + "---:|" * len(tools)]
    for protocol in rows:
        values = [cell_text(cells.get((protocol.key, tool.key)),
                            lambda r: f"{r.measures['one_minus_roca_percent']:.3f}") for tool in tools]
        lines.append(f"| {protocol.title} | " + " | ".join(values) + " |")
    return "\n".join(lines)


def detail_table(rows, tools, cells) -> str:
    lines = ["| protocol | tool | 1-ROCA % | lam % | ham as spam % | spam as spam % | unsure % (ham / spam) | "
             "spam caught, best cutoff % | wall s |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for protocol in rows:
        for tool in tools:
            cell = cells.get((protocol.key, tool.key))
            start = f"| {protocol.title} | {tool.title} |"
            if not isinstance(cell, Result):
                lines.append(start + f" {cell_text(cell, None)} | | | | | | |")
                continue
            m, seconds = cell.measures, cell.outcome.seconds
            wall = (f"{seconds['total']:.0f}" if "total" in seconds
                    else f"{seconds['train']:.1f} + {seconds['classify']:.1f}")
            lines.append(start + f" {m['one_minus_roca_percent']:.3f} | {m['lam_percent']:.2f} | "
                         f"{m['ham_as_spam_percent']:.2f} | {m['spam_as_spam_percent']:.1f} | "
                         f"{m['unsure_ham_percent']:.1f} / {m['unsure_spam_percent']:.1f} | "
                         f"{m['spam_caught_at_best_cutoff_percent']:.1f} | {wall} |")
    return "\n".join(lines)


def row_sizes(rows, sizes) -> list[str]:
    lines = []
    for protocol in rows:
        size = sizes.get(protocol.key)
        if not size:
            continue
        what = (f"train {size['train']:,} ({size['train_spam']:,} spam), test {size['test']:,} "
                f"({size['test_spam']:,} spam)" if protocol.kind == "split"
                else f"the first {size['test']:,} messages ({size['test_spam']:,} spam)")
        headers = "all headers" if protocol.headers == "all" else "content headers"
        lines.append(f"- {protocol.title} ({headers}): {protocol.describe}; {what}")
    return lines


def notes_list(rows, tools, cells, skipped) -> list[str]:
    lines = [f"- {tool.title} skipped: {skipped[tool.kind]}" for tool in tools if tool.kind in skipped]
    lines += [f"- **{what}**: {why}" for what, why in skipped.items() if what not in TOOL_KINDS]
    for protocol in rows:
        for tool in tools:
            cell = cells.get((protocol.key, tool.key))
            notes = cell.outcome.notes if isinstance(cell, Result) else [cell] if isinstance(cell, str) \
                and cell != "skipped" else []
            lines += [f"- {protocol.title}, {tool.title}: {note}" for note in notes]
    return lines


METHODS = {
    "spamnb": "spamnb: its command line with its defaults at the time of the run (settings in the notes): "
              "`spamnb train --spam DIR --ham DIR -q` then `spamnb classify --format jsonl DIR` to split; "
              "online, per message, `spamnb classify --format jsonl --model M FILE` then "
              "`spamnb learn --spam|--ham FILE --model M`, starting with no model file (the first learn "
              "creates it); `--headers content` added on the ccert_zh rows. Score `log_odds`, verdict `label`.",
    "bogofilter": "bogofilter: fresh database, no config file (`-C`: spamicity ≥ 0.99 spam, ≤ 0.45 ham); "
                  "split: bulk registration (`-s -b`, `-n -b`), verdicts from `-T -b`, scores from the "
                  "16-digit spamicity of `-TT -b`; online: `-T`, `-TT`, then `-s` or `-n` per message.",
    "crm114": "CRM114: the standard `mailreaver.crm` (classify) and `mailtrainer.crm` (train) with Debian's "
              "`mailfilter.cf`: `<osb unique microgroom>` on `[[:graph:]]+` tokens of the first 16,000 bytes, "
              "base64 decoded, pR ≤ −5 spam, ≥ +5 good, between unsure, and DSTTTR training (a message is "
              "learned only if misclassified or |pR| < 5, thickness 5). Split: `mailtrainer.crm --random` "
              "one pass in training order, then `mailreaver.crm --stats_only` per test message; online: "
              "`mailreaver.crm --stats_only`, then `mailreaver.crm --spam|--good` per message. Changed from "
              "the cf: no allmail.txt log, and the trainer's \"randomizer\" is a sort by file name, so it "
              "trains in the protocol's order. Score −pR (printed to 2 decimals).",
    "sklearn": "sklearn MNB: Subject + From + the text/plain (else tag-stripped text/html) body from `email`, "
               "jieba words for Han runs and CountVectorizer's default token pattern elsewhere "
               "(bench/sklearn_text.py); split: `CountVectorizer` + `MultinomialNB().fit`; online: "
               "`HashingVectorizer(alternate_sign=False, norm=None)` + `MultinomialNB().partial_fit` one "
               "message at a time. Score `predict_proba[:, 1]`, as a plain script would (it ties at exactly "
               "0 and 1); verdict `predict()` (0.5, no unsure). Its times include decoding and jieba.",
}


def report(rows, tools, cells, sizes, versions, skipped, command, seconds, limits, load) -> str:
    tool_versions = "; ".join(f"{PEERS.get(kind, kind)} {versions[kind]}" if kind != "sklearn" else versions[kind]
                              for kind in dict.fromkeys(tool.kind for tool in tools) if kind in versions)
    online_rows = [p for p in rows if p.kind == "online"]
    parts = [
        "## spamnb against bogofilter, CRM114 and scikit-learn, the way mail arrives",
        "",
        "Every tool reads the same message bytes under neutral numbered names. Split rows train once "
        "and score the test part; online rows are TREC's immediate feedback from an empty model: each "
        "message in order is scored, then learned with its true label (the first message, before any "
        "tool has anything to score with, counts as unsure at the tool's neutral score). trec06p and "
        "spamassassin keep every header; ccert_zh keeps only the Subject, From, To, Cc, Reply-To, "
        "MIME-Version and Content-* fields, since its routing headers give the label away. ccert_zh's "
        "index holds all its ham (2004) before all its spam (2005-07), so its stream merges the two "
        "classes by relative position, each in index order.",
        "",
        *row_sizes(rows, sizes),
        "",
        "Online rows run the command-line tools once or more per message, so the spamassassin and "
        f"ccert_zh ones stop at {ONLINE_LIMITS['spamassassin']:,} messages unless --online-limit says "
        "otherwise. spamnb's defaults were chosen (bench/choose_defaults.py) inside the split rows' "
        "training parts, which hold all of the trec06p online row's messages and 70 % of cross "
        "trec→sa's test (spamassassin's training part): those two rows are not unseen by the choice "
        "of spamnb's defaults; every other test part is.",
        "",
        "1-ROCA % (100 × (1 − area under the ROC curve) of each tool's continuous score; lower is better):",
        "",
        summary_table(rows, tools, cells),
        "",
        "lam % is TREC's logistic average misclassification at the tool's own verdicts with unsure counted "
        "as ham (a binary filter files unsure mail with the ham); the verdict columns are at the tool's "
        "own default cutoffs; \"spam caught, best cutoff\" is the spam scored at or above the best "
        "cutoff that calls at most 0.1 % of the ham spam; wall s is train + classify seconds for split "
        "rows, and all the per-message calls for online rows.",
        "",
        detail_table(rows, tools, cells),
        "",
        *worst_ratio_section(rows, tools, cells),
        "\n".join([f"- {METHODS[kind]}" for kind in dict.fromkeys(tool.kind for tool in tools)]
                  + notes_list(rows, tools, cells, skipped)),
        "",
        f"Machine: {machine()}; load average at the start {load}; {tool_versions}. "
        f"Run {datetime.date.today().isoformat()}, "
        f"{seconds / 60:.1f} minutes in all"
        + (f"; online rows limited to {', '.join(f'{p.title} {limits[p.key]:,}' for p in online_rows)} messages"
           if online_rows else "") + ".",
        "",
        *reproduce(command),
    ]
    return "\n".join(parts)


# -------------------------------------------------------------------- JSON

def finite(value):
    """JSON has no infinity: ±inf (sklearn's log-odds with one class seen) as ±max float, which keeps the order."""
    if value is None or math.isfinite(value):
        return value
    return math.copysign(sys.float_info.max, value)


def dump(path: Path, rows, tools, cells, ids, sizes, versions, skipped, command, limits, load) -> None:
    data = {"command": command, "machine": machine(), "load_average_at_start": load,
            "date": datetime.date.today().isoformat(),
            "versions": versions, "skipped": skipped, "protocols": {}}
    for protocol in rows:
        if protocol.key not in ids:
            continue
        entry = {"title": protocol.title, "kind": protocol.kind, "headers": protocol.headers,
                 "limit": limits.get(protocol.key), "size": sizes.get(protocol.key),
                 "messages": ids[protocol.key], "tools": {}}
        for tool in tools:
            cell = cells.get((protocol.key, tool.key))
            if isinstance(cell, Result):
                outcome = cell.outcome
                entry["tools"][tool.key] = {
                    "title": tool.title, "args": list(tool.extra), "neutral": outcome.neutral,
                    "scores": [finite(s) for s in outcome.scores], "verdicts": outcome.verdicts,
                    "seconds": outcome.seconds, "notes": outcome.notes, "measures": cell.measures,
                    "alternatives": {what: [finite(s) for s in scores]
                                     for what, (scores, _) in outcome.alternatives.items()}}
            elif cell is not None:
                entry["tools"][tool.key] = {"title": tool.title, "failed": cell}
        data["protocols"][protocol.key] = entry
    path.write_text(json.dumps(data))


# -------------------------------------------------------------------- main

def parse_arguments(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--protocol", action="append", choices=list(BY_KEY), help="run only this protocol (repeatable)")
    parser.add_argument("--tool", action="append", choices=TOOL_KINDS, help="run only this tool (repeatable)")
    parser.add_argument("--spamnb-args", action="append", metavar="ARGS",
                        help="options for `spamnb train` and the model-creating `spamnb learn`, as one "
                             "string; repeatable: one spamnb column each (default: one, with none)")
    parser.add_argument("--online-limit", type=int, metavar="N",
                        help="messages in every online row (default: " +
                             ", ".join(f"{name} {n:,}" for name, n in ONLINE_LIMITS.items()) + ")")
    parser.add_argument("--json", type=Path, metavar="PATH", help="write every score and measure here")
    parser.add_argument("--write", action="store_true", help="write the tables into BENCHMARKS.md")
    return parser.parse_args(argv)


def availability(tools: list[Tool]) -> tuple[dict[str, str], dict[str, str]]:
    """({tool kind: version}, {tool kind: why skipped})."""
    versions, skipped = {}, {}
    for kind in dict.fromkeys(tool.kind for tool in tools):
        try:
            versions[kind] = {"spamnb": tool_spamnb, "bogofilter": tool_bogofilter, "crm114": tool_crm114,
                              "sklearn": tool_sklearn}[kind].version()
        except Exception as error:
            skipped[kind] = str(error)
            print(f"skipping {kind}: {error}", file=sys.stderr)
    return versions, skipped


def main(argv=None) -> None:
    arguments = parse_arguments(argv)
    started = time.perf_counter()
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())  # other work on the machine slows every tool
    command = shlex.join([".venv/bin/python", "bench/compare.py"] + (sys.argv[1:] if argv is None else argv))
    rows = []
    for protocol in PROTOCOLS:
        if arguments.protocol and protocol.key not in arguments.protocol:
            continue
        missing = [name for name in protocol.needs if not corpora.present(name)]
        if missing:
            print(f"skipping {protocol.key}: {', '.join(missing)} not found in {corpora.CORPORA}", file=sys.stderr)
            continue
        rows.append(protocol)
    tools = tools_for([kind for kind in TOOL_KINDS if not arguments.tool or kind in arguments.tool],
                      arguments.spamnb_args)
    versions, skipped = availability(tools)
    code_at_start = tool_spamnb.code_state()
    limits = {p.key: arguments.online_limit or ONLINE_LIMITS[p.needs[0]] for p in rows if p.kind == "online"}
    cells, ids, sizes = {}, {}, {}
    with tempfile.TemporaryDirectory(prefix="spamnb-compare-") as temporary:
        for protocol in rows:
            root = Path(temporary) / protocol.key
            print(f"[{protocol.title}] writing messages to {root}", file=sys.stderr, flush=True)
            if protocol.kind == "split":
                train, test = protocol.split()
                sizes[protocol.key] = {"train": len(train), "train_spam": sum(l for l, _ in train),
                                       "test": len(test), "test_spam": sum(l for l, _ in test)}
                ids[protocol.key] = {"train": [[l, message_id(p)] for l, p in train],
                                     "test": [[l, message_id(p)] for l, p in test]}
            else:
                test = protocol.stream(limits[protocol.key])
                sizes[protocol.key] = {"test": len(test), "test_spam": sum(l for l, _ in test)}
                ids[protocol.key] = {"test": [[l, message_id(p)] for l, p in test]}
            labels = [label for label, _ in test]
            for tool in tools:
                if tool.kind in skipped:
                    cells[(protocol.key, tool.key)] = "skipped"
                    continue
                # A fresh copy of the messages for every tool: none sees another's state.
                work = root / tool.key
                job = (lay_out_split(work, train, test, protocol.headers) if protocol.kind == "split"
                       else lay_out_online(work, test, protocol.headers, protocol.title))
                cells[(protocol.key, tool.key)] = run_cell(tool, job, labels, protocol.title)
                shutil.rmtree(work)
            if arguments.json:  # after every row, so an interrupted run keeps what it measured
                dump(arguments.json, rows, tools, cells, ids, sizes, versions, skipped, command, limits, load)
    if "spamnb" in versions:
        # Every spamnb call runs the checkout's code: an edit (or a merge) in it during
        # the run would measure two programs under one name.
        now = tool_spamnb.code_state()
        if now != code_at_start:
            skipped["spamnb changed during the run"] = f"its code was {code_at_start} at the start, {now} at the end"
            print(f"warning: spamnb changed during the run: {code_at_start} -> {now}", file=sys.stderr)
    text = report(rows, tools, cells, sizes, versions, skipped, command, time.perf_counter() - started, limits,
                  load)
    publish("compare", text, arguments.write)


if __name__ == "__main__":
    main()
