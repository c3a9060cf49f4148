"""Rendering results for people (text, rich tables) and for scripts (TSV, JSON)."""

from __future__ import annotations

import json
import math
import sys
from io import TextIOBase

from .scoring import Score
from .sources import Skipped, display

def _finite(value: float) -> float:
    # JSON has no infinity; a clamped number keeps every line parseable.
    return value if math.isfinite(value) else (1e308 if value > 0 else -1e308)


def score_record(origin: str, score: Score, explain: int = 0) -> dict:
    record = {
        "path": display(origin),
        "label": score.label,
        "score": round(score.probability, 6),
        "log_odds": round(_finite(score.log_odds), 4),
        "tokens_known": score.tokens_known,
        "tokens_distinct": score.tokens_distinct,
    }
    if explain:
        record["explain"] = [
            {"token": e.token, "weight": round(e.weight, 4), "count": e.count,
             "contribution": round(e.contribution, 4)} for e in score.effects[:explain]
        ]
    return record


class ScoreWriter:
    """Writes one classify result at a time in the chosen format."""

    def __init__(self, stream: TextIOBase, fmt: str, explain: int = 0) -> None:
        self.stream = stream
        self.fmt = fmt
        self.explain = explain
        self._records: list[dict] = []
        if fmt == "tsv":
            stream.write("path\tlabel\tscore\tlog_odds\n")

    def write(self, origin: str, score: Score) -> None:
        record = score_record(origin, score, self.explain)
        if self.fmt == "jsonl":
            self.stream.write(json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n")
        elif self.fmt == "json":
            self._records.append(record)
        elif self.fmt == "tsv":
            path = record["path"].replace("\t", " ").replace("\n", " ")
            self.stream.write(f"{path}\t{record['label']}\t{record['score']:.6f}\t{record['log_odds']:.4f}\n")
        else:
            self.stream.write(f"{record['label']:<6}  {score.probability:.4f}  "
                              f"{_finite(score.log_odds):+9.2f}  {record['path']}\n")
            for effect in record.get("explain", []):
                self.stream.write(f"        {effect['contribution']:+8.3f}  {effect['token']}  "
                                  f"(weight {effect['weight']:+.3f} × {effect['count']})\n")
        self.stream.flush()

    def close(self) -> None:
        if self.fmt == "json":
            json.dump(self._records, self.stream, ensure_ascii=False, indent=2, allow_nan=False)
            self.stream.write("\n")


def skipped_summary(skipped: list[Skipped], show: int = 5) -> list[str]:
    if not skipped:
        return []
    lines = [f"skipped {len(skipped)} file(s) that could not be read as mail:"]
    lines += [f"  {item.origin}: {item.reason}" for item in skipped[:show]]
    if len(skipped) > show:
        lines.append(f"  ... and {len(skipped) - show} more")
    return lines


def evaluation_text(result: dict) -> str:
    """The evaluate report for people."""
    m = result["messages"]
    lines = [f"protocol: {result['protocol']};  scored {m['spam']:,} spam + {m['ham']:,} ham"
             + (f";  {result['skipped']} files skipped" if result["skipped"] else ""),
             "",
             f"  1-ROCA %            {result['one_minus_roca_percent']:.4f}   (ROC AUC {result['roc_auc']:.6f})",
             f"  lam %               {result['lam_percent']:.4f}",
             f"  spam missed at 0.1 % ham loss: {result['spam_miss_at_0.1%_fpr']:.2f} %",
             "",
             "  at the cutoffs:",
             f"    ham called spam   {100 * result['false_positive_rate']:.3f} %",
             f"    spam called ham   {100 * result['false_negative_rate']:.3f} %",
             f"    unsure            {100 * result['unsure_rate']:.3f} %",
             f"    accuracy {result['accuracy']:.4f}   precision {result['precision']:.4f}   "
             f"recall {result['recall']:.4f}   F1 {result['f1']:.4f}",
             "",
             "  confusion (rows: truth)   spam      ham   unsure"]
    for truth in ("spam", "ham"):
        row = result["confusion"][truth]
        lines.append(f"    {truth:<22} {row['spam']:>6,} {row['ham']:>8,} {row['unsure']:>8,}")
    if "cutoffs" in result:
        lines.append(f"  cutoffs: spam ≥ {result['cutoffs']['spam']:.6g}, ham ≤ {result['cutoffs']['ham']:.6g}")
    if "tuned_cutoffs" in result:
        tuned = result["tuned_cutoffs"]
        lines.append(f"  tuned on these scores (ham loss ≤ {100 * tuned['max_fpr']:g} %): spam ≥ {tuned['spam']:.6g}, "
                     f"ham ≤ {tuned['ham']:.6g}" + (f"; stored in {tuned['stored_in']}" if "stored_in" in tuned else ""))
    return "\n".join(lines)


def inspect_text(summary, spam_rows, ham_rows, looked_up):
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    # Piped output gets a fixed width wide enough for URL tokens, not rich's 80.
    console = Console(width=None if sys.stdout.isatty() else 120)
    m = summary["messages"]
    console.print(f"[bold]model[/bold] {escape(summary['model'])}")
    console.print(f"messages: {m['spam']:,} spam, {m['ham']:,} ham   vocabulary: {summary['vocabulary']:,} tokens")
    console.print(f"event model: {summary['event_model']}   alpha: {summary['alpha']:g}   "
                  f"min strength: {summary['min_strength']:g}   retrain margin: {summary['retrain_margin']:g}   "
                  f"bias: {summary['bias']:+.3f}   cutoffs: spam ≥ {summary['cutoffs']['spam']:g}, "
                  f"ham ≤ {summary['cutoffs']['ham']:g}")
    size = f"{summary['file_bytes'] / 1e6:.1f} MB" if summary.get("file_bytes") else "?"
    console.print(f"created: {summary['created']}   updated: {summary['updated']}   file: {size}   "
                  f"messages on record: {summary['learned_digests']:,}")
    console.print(f"headers: {escape(', '.join(summary['headers'])) or '(none)'}   "
                  f"stop words: {summary['stopwords']:,}"
                  + (f"   keywords: {summary['keywords']:,} (only they weigh)" if summary.get("keywords") else ""))

    def table(title, rows):
        t = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
        t.add_column("token", overflow="fold")
        for column in ("weight", "spam count", "ham count", "spam msgs", "ham msgs"):
            t.add_column(column, justify="right")
        for row in rows:
            token = escape(row["token"])  # tokens come from mail: "[/red]" is not markup
            if "keyword" in row:
                token += " (keyword)" if row["keyword"] else " (not a keyword: weighs 0)"
            if row.get("weight") is None:
                t.add_row(token, "(not in model)", "", "", "", "")
                continue
            t.add_row(token, f"{row['weight']:+.3f}", f"{row['spam_count']:,}",
                      f"{row['ham_count']:,}", f"{row['spam_messages']:,}", f"{row['ham_messages']:,}")
        console.print()
        console.print(t)

    if looked_up:
        table("tokens", spam_rows)
    else:
        table("top spam keywords", spam_rows)
        table("top ham keywords", ham_rows)


def learn_summary(report, forget: bool, path: str, created: bool) -> list[str]:
    """What `learn` says it did (stdout), one line of counts and one about the file."""
    done = report.forgotten if forget else report.learned
    parts = [f"{'forgot' if forget else 'learned'} {done['spam']:,} spam + {done['ham']:,} ham"]
    for count, what in ((report.relabelled, "moved from the other label"),
                        (report.duplicates, "already learned (skipped; --force learns again)"),
                        (report.conflicts, "learned with the other label (skipped; --relabel moves)"),
                        (report.not_learned, "not learned with that label (skipped)"),
                        (report.already_right, "already classified right (skipped)")):
        if count:
            parts.append(f"{count:,} {what}")
    return ["; ".join(parts), f"model written to {path}" if report.changed or created else f"model unchanged: {path}"]
