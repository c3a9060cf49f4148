"""Rendering results for people (text, rich tables) and for scripts (TSV, JSON)."""

from __future__ import annotations

import math
import sys
from io import TextIOBase

from .. import jsoncodec
from ..model.scoring import Score
from ..mail.sources import Skipped, display

# A token or file name holding bytes that are not UTF-8 carries them as lone
# surrogates (surrogateescape), which no UTF-8 stream can take: they are
# written as \udcXX escapes (in JSON, the escape JSON itself uses).  Found
# without `re`, which a `classify --server` client would import for this
# alone (10 ms of its start, BENCHMARKS.md "Online through the command line").


def _writable(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join(f"\\u{ord(char):04x}" if "\ud800" <= char <= "\udfff" else char for char in text)
    return text


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
    if score.reason:  # not scored (not mail, out of time): why, as stderr also says
        record["reason"] = score.reason
    if explain:
        from ..text.tokens import token_part

        # Unrounded, so that the listed contributions and terms add up to
        # log_odds exactly (to the last bits of a double).
        record["log_odds"] = _finite(score.log_odds)
        record["explain"] = [
            {"token": e.token, "part": token_part(e.token), "weight": e.weight, "count": e.count,
             "contribution": e.contribution}
            for e in score.effects[:explain]
        ]
        record["explain_terms"] = explain_terms(score, explain)
        parts: dict[str, dict] = {part: {"tokens": 0, "contribution": 0.0} for part in PARTS}
        for effect in score.effects:
            part = parts[token_part(effect.token)]
            part["tokens"] += 1
            part["contribution"] += effect.contribution
        record["explain_parts"] = parts
        if score.factor is not None:
            scale, divisor, kept = score.factor
            record["explain_factor"] = {"scale": scale, "divisor": divisor, "tokens": kept}
    return record


# The parts of a message a token can come from (text/tokens.py token_part).
PARTS = ("header", "subject", "body")


def explain_terms(score: Score, listed: int) -> list[dict]:
    """The terms of the log-odds besides the listed tokens: the offset (the
    calibration's, or the bias) and any other term of the scoring rule, then
    the tokens past the `listed` first, summed into one line (with how many
    come from each part of the message)."""
    from ..text.tokens import token_part

    terms = [{"term": name, "contribution": value} for name, value in score.terms]
    rest = score.effects[listed:]
    if rest:
        counts = {part: 0 for part in PARTS}
        for effect in rest:
            counts[token_part(effect.token)] += 1
        terms.append({"term": "other tokens", "tokens": len(rest), "parts": counts,
                      "contribution": sum(effect.contribution for effect in rest)})
    return terms


def explanation_lines(record: dict) -> list[str]:
    """The explanation under a verdict, for people: every term of the sum
    one a line (the offset, each listed token marked with the part of the
    message it comes from, the other tokens together), a rule, the total
    (which the lines add up to), then the same sum in words."""
    lines = []
    terms = record["explain_terms"]
    tokens_line = [term for term in terms if "tokens" in term]
    for term in terms:
        if "tokens" not in term:
            lines.append(f"{term['contribution']:+8.3f}  {term['term']}")
    for effect in record["explain"]:
        times = f" × {effect['count']}" if effect["count"] != 1 else ""
        lines.append(f"{effect['contribution']:+8.3f}  {effect['part']:<7}  {_writable(effect['token'])}  "
                     f"(weight {effect['weight']:+.3f}{times})")
    for term in tokens_line:
        by_part = ", ".join(f"{n:,} {part}" for part, n in term["parts"].items() if n)
        lines.append(f"{term['contribution']:+8.3f}  {term['tokens']:,} more tokens ({by_part})")
    if len(lines) > 1:
        lines.append("────────")
    log_odds = record["log_odds"]
    added = sum(term["contribution"] for term in terms) + sum(e["contribution"] for e in record["explain"])
    probability = f"P(spam) = 1 / (1 + e^{-log_odds:+.3f}) = {record['score']:.4f}"
    if math.isclose(added, log_odds, rel_tol=1e-9, abs_tol=1e-9):
        lines.append(f"{log_odds:+8.3f}  log-odds: the lines above added up; {probability}")
        lines += _explanation_in_words(record)
    else:  # a rule set the score without the tokens (the reason says which)
        lines.append(f"{log_odds:+8.3f}  log-odds, not the lines above added up; {probability}")
    if record.get("reason"):
        lines.append(f"not scored by its tokens: {record['reason']}")
    return lines


def _count(n: int, what: str) -> str:
    return f"{n:,} {what}" if n == 1 else f"{n:,} {what}s"


def _explanation_in_words(record: dict) -> list[str]:
    """The scoring rule with this message's numbers: log-odds = the terms +
    scale × the tokens' weights summed and divided by n^γ (an average, a
    sum over √n, or a plain sum); then what each part of the message added."""
    factor = record.get("explain_factor")
    parts = record["explain_parts"]
    if not factor or not any(part["tokens"] for part in parts.values()):
        return []
    scale, divisor, kept = factor["scale"], factor["divisor"], factor["tokens"]
    summed = sum(part["contribution"] for part in parts.values()) * divisor / scale  # Σ weight × count
    repeated = any(e["count"] != 1 for e in record["explain"])
    weights = "weight × times seen" if repeated else "weight"
    tokens = (f"the {kept:,} strongest of the {record['tokens_known']:,} tokens the model knows here"
              if kept < record["tokens_known"] else f"the {_count(kept, 'token')} the model knows here")
    total = f"the sum of {weights} over {tokens}" if repeated else f"the sum of the weights of {tokens}"
    if kept > 1 and math.isclose(divisor, kept):
        sum_in_words = f"the average {weights} of {tokens}, {summed / kept:+.3f}"
    elif kept > 1 and math.isclose(divisor, math.sqrt(kept)):
        sum_in_words = f"({total}, {summed:+.3f}) ÷ √{kept:,} ({divisor:.4g})"
    else:
        sum_in_words = f"{total}, {summed:+.3f}"
    named = [f"{term['term']} {term['contribution']:+.3f}" for term in record["explain_terms"] if "tokens" not in term]
    scaled = f"{scale:.4g} × " if scale != 1 else ""
    each = f"{weights} × {scale:.4g}" + (f" ÷ {divisor:.4g}" if divisor != 1 else "")
    return [f"that is: {' + '.join(named + [scaled + sum_in_words])}",
            f"(so each token's line is its {each})",
            "by part of the message: " + ", ".join(
                f"{'header fields' if name == 'header' else name} {part['contribution']:+.3f} "
                f"({_count(part['tokens'], 'token')})" for name, part in parts.items())]


class ScoreWriter:
    """Writes one classify result at a time in the chosen format."""

    def __init__(self, stream: TextIOBase, fmt: str, explain: int = 0) -> None:
        self.stream = stream
        self.fmt = fmt
        self.explain = explain
        self._records: list[dict] = []
        if fmt == "tsv":
            stream.write("path\tlabel\tscore\tlog_odds\n")

    def write(self, origin: str, score: Score, flush: bool = True) -> None:
        """Write one result; `flush`: out of the buffer at once (a caller
        writing a batch of results flushes after its last)."""
        record = score_record(origin, score, self.explain)
        if self.fmt == "jsonl":
            self.stream.write(_writable(jsoncodec.dumps(record, ensure_ascii=False, allow_nan=False)) + "\n")
        elif self.fmt == "json":
            self._records.append(record)
        elif self.fmt == "tsv":
            path = _writable(record["path"].replace("\t", " ").replace("\n", " "))
            self.stream.write(f"{path}\t{record['label']}\t{record['score']:.6f}\t{record['log_odds']:.4f}\n")
        else:
            self.stream.write(f"{record['label']:<6}  {score.probability:.4f}  "
                              f"{_finite(score.log_odds):+9.2f}  {_writable(record['path'])}\n")
            if self.explain:
                self._write_explanation(record)
        if flush:
            self.stream.flush()

    def _write_explanation(self, record: dict) -> None:
        for line in explanation_lines(record):
            self.stream.write(f"        {line}\n")

    def close(self) -> None:
        if self.fmt == "json":
            import json  # indented output: json's Python encoder; one-line records need only jsoncodec

            self.stream.write(_writable(json.dumps(self._records, ensure_ascii=False, indent=2, allow_nan=False)))
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
    if result.get("cutoffs_by_fold"):
        folds = result["cutoffs_by_fold"]
        spam, ham = [fold["spam"] for fold in folds], [fold["ham"] for fold in folds]
        lines.append(f"  cutoffs of the {len(folds)} folds' models: spam ≥ {min(spam):.6g} to {max(spam):.6g}, "
                     f"ham ≤ {min(ham):.6g} to {max(ham):.6g}")
    if "tuned_cutoffs" in result:
        tuned = result["tuned_cutoffs"]
        lines.append(f"  tuned on these scores (ham loss ≤ {100 * tuned['max_fpr']:g} %): "
                     f"spam ≥ {tuned['spam']:.6g}, ham ≤ {tuned['ham']:.6g}"
                     + (f"; stored in {tuned['stored_in']}" if "stored_in" in tuned else ""))
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
                  f"bias: {summary['bias']:+.3f}")
    cutoffs = summary["cutoffs"]
    console.print(f"cutoffs: spam ≥ {cutoffs['spam']:.4g}, ham ≤ {cutoffs['ham']:.4g}"
                  + (f" ({cutoffs['set_by']})" if cutoffs.get("set_by") else ""))
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
        if looked_up:
            t.add_column("why it weighs nothing", overflow="fold")
            for row in rows:
                row.setdefault("note", "")
        for row in rows:
            token = escape(row["token"])  # tokens come from mail: "[/red]" is not markup
            if "keyword" in row:
                token += " (keyword)" if row["keyword"] else " (not a keyword: weighs 0)"
            note = [escape(row["note"])] if looked_up else []
            if row.get("weight") is None:
                t.add_row(token, "(not in model)", "", "", "", "", *note)
                continue
            t.add_row(token, f"{row['weight']:+.3f}", f"{row['spam_count']:,}",
                      f"{row['ham_count']:,}", f"{row['spam_messages']:,}", f"{row['ham_messages']:,}",
                      *note)
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
