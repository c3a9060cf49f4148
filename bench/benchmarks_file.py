"""BENCHMARKS.md, written one section at a time between marker comments
(`<!-- NAME:start -->` … `<!-- NAME:end -->`), so each bench script
replaces its own part and leaves the rest, hand-written notes included."""

from __future__ import annotations

import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "BENCHMARKS.md"
HEADING = "# Benchmarks\n\nMeasured accuracy and speed of spamnb and other filters.\n"


def write_section(name: str, text: str) -> None:
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    current = BENCHMARKS.read_text() if BENCHMARKS.exists() else HEADING
    if start not in current or end not in current:
        current = current.rstrip("\n") + f"\n\n{start}\n{end}\n"
    before, rest = current.split(start, 1)
    _, after = rest.split(end, 1)
    BENCHMARKS.write_text(f"{before}{start}\n{text}\n{end}{after}")


def reproduce(command: str) -> list[str]:
    """The closing lines of every section: how to run it again."""
    return ["Reproduce with:", "", "```", command, "```"]


def publish(name: str, text: str, write: bool) -> None:
    """Print a section, and with `write` put it into BENCHMARKS.md too."""
    print(text)
    if write:
        write_section(name, text)
        print(f"wrote {BENCHMARKS}", file=sys.stderr)
