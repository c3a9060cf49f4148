"""Rendering results for people (text, rich tables) and for scripts (TSV, JSON)."""

from __future__ import annotations

import json
import math
from typing import IO

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

    def __init__(self, stream: IO[str], fmt: str, explain: int = 0) -> None:
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
