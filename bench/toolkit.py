"""What bench/compare.py and its tool runners (bench/tool_*.py) share: the
jobs a tool is given, the outcome it hands back, running commands, finding
or installing a peer, and progress on stderr.

A tool sees messages only as neutral numbered files under a temporary
directory (bench/compare.py lays them out) and the labels it is told to
learn; the scoring of what it returns is compare.py's.
"""

from __future__ import annotations

import os
import platform
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path


class Skip(Exception):
    """A tool that cannot run here: its cells show "–" and the reason is printed."""


@dataclass(frozen=True)
class Item:
    """One message: 1 spam / 0 ham, and the neutral file every tool reads."""
    label: int
    path: Path


@dataclass
class SplitJob:
    """Train on `train` (in this order), then score `test`.  The files are
    root/train/spam/NNNNNN, root/train/ham/NNNNNN (NNNNNN: the position in
    the training order) and root/test/NNNNNN."""
    root: Path
    train: list[Item]
    test: list[Item]
    content_headers: bool  # the copies keep only content header fields

    @property
    def spam_dir(self) -> Path:
        return self.root / "train" / "spam"

    @property
    def ham_dir(self) -> Path:
        return self.root / "train" / "ham"

    @property
    def test_dir(self) -> Path:
        return self.root / "test"


@dataclass
class OnlineJob:
    """TREC immediate feedback from nothing: for each message of `stream` in
    order, score it, then learn it with its label.  Files: root/stream/NNNNNN."""
    root: Path
    stream: list[Item]
    content_headers: bool
    title: str = ""

    def progress(self, tool: str, done: int, started: float) -> None:
        """A line on stderr every 250 messages, with the rate and what is left."""
        total = len(self.stream)
        if done % 250 and done != total:
            return
        seconds = time.perf_counter() - started
        rate = done / seconds if seconds else 0.0
        left = (total - done) / rate if rate else 0.0
        print(f"[{self.title}] {tool}: {done}/{total} messages, {rate:.1f} msg/s, "
              f"{seconds / 60:.1f} min so far, about {left / 60:.1f} min left", file=sys.stderr, flush=True)


@dataclass
class Outcome:
    """What a tool said about each test (or stream) message, in order.

    A score is the tool's own continuous spamminess (higher: spammier); a
    message it could not score (no model yet, an error) has score None and
    verdict "unsure".  `seconds` holds wall-clock phases ("train",
    "classify"; "total" for an online run).  `alternatives` are other
    scores of the same messages worth a note ({what they are: (scores, neutral)}).
    `neutral` is the score that says nothing either way: where unscored
    messages sit in the ranking."""
    scores: list[float | None]
    verdicts: list[str]
    seconds: dict[str, float]
    notes: list[str] = field(default_factory=list)
    alternatives: dict[str, tuple[list[float | None], float]] = field(default_factory=dict)
    neutral: float = 0.0


def timed(function, *args):
    started = time.perf_counter()
    value = function(*args)
    return value, time.perf_counter() - started


def run(command: list[str], stdin: str | bytes | None = None, ok=(0,), cwd: Path | None = None,
        text: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(command, input=stdin, capture_output=True, text=text, cwd=cwd)
    if done.returncode not in ok:
        error = done.stderr if text else done.stderr.decode(errors="replace")
        raise RuntimeError(f"{shlex.join(command[:3])}... exited {done.returncode}: {error.strip()[-500:]}")
    return done


def names(paths) -> str:
    """One path a line, as bogofilter -b reads them."""
    return "".join(f"{path}\n" for path in paths)


def ensure_command(command: str, package: str) -> str:
    """The path of `command`, installing the Debian `package` with apt-get
    first if it is missing; Skip (saying why) if that cannot be done."""
    found = shutil.which(command)
    if found:
        return found
    print(f"{command} is not on PATH: trying apt-get install {package}", file=sys.stderr)
    environment = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for step in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", package]):
        try:
            done = subprocess.run(step, capture_output=True, text=True, env=environment, timeout=900)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise Skip(f"{command} is missing and {' '.join(step)} failed: {error}") from None
        if done.returncode != 0:
            raise Skip(f"{command} is missing and {' '.join(step)} exited {done.returncode}: "
                       f"{done.stderr.strip()[-300:]}")
    found = shutil.which(command)
    if not found:
        raise Skip(f"{command} is still not on PATH after apt-get install {package}")
    return found


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{cores} cores ({cpu}), Python {platform.python_version()}"
