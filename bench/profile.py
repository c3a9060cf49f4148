"""Where spamnb spends its time: cProfile of training and bulk classification.

Runs, in this process and one job (`-j 1` where the build has it), through
`spamnb.app.cli.main`:

- `spamnb train --spam DIR --ham DIR --model M` on spamassassin's 70 %;
- `spamnb classify --model M --format jsonl DIR` on its 30 %;

(content-header copies of bench/corpora.py's split, as bench/perf.py uses)
and prints the 15 functions with the most time of their own (tottime) and
the 15 with the most time including what they call (cumtime), as markdown.

    .venv/bin/python bench/profile.py [--quick] [--top 15] [--checkout DIR] [--write]

--quick profiles every 10th message; --write replaces the part of
BENCHMARKS.md between <!-- profile:start --> and <!-- profile:end --> (added
when missing).  The spamnb profiled is the one in --checkout (default: this
checkout), put first on the import path.

Running this file as a script puts bench/ first on sys.path, where this
file's name would hide the standard library's `profile` module that
cProfile is built on; so bench/ leaves sys.path until cProfile is loaded.
"""

from __future__ import annotations

import os
import sys

_BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _BENCH]

import argparse  # noqa: E402
import contextlib  # noqa: E402
import cProfile  # noqa: E402
import datetime  # noqa: E402
import pstats  # noqa: E402
import shlex  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(_BENCH).parent


def parse_arguments(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="every 10th message, for a smoke run")
    parser.add_argument("--top", type=int, default=15, help="functions per table (default 15)")
    parser.add_argument("--checkout", default=str(ROOT), help="the spamnb checkout to profile (default: this one)")
    parser.add_argument("--write", action="store_true", help="write the tables into BENCHMARKS.md")
    return parser.parse_args(argv)


def call(main, argv: list[str]) -> int:
    """spamnb's main(argv) with its output thrown away; its exit status."""
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        try:
            main(argv)
        except SystemExit as done:
            return done.code if isinstance(done.code, int) else 1
    return 0


def has_jobs(cli_module, command: str) -> bool:
    params = cli_module.cli.commands[command].params
    return any("-j" in getattr(param, "opts", []) or param.name == "jobs" for param in params)


def profiled(main, argv: list[str], ok=(0,)) -> tuple[pstats.Stats, float]:
    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.enable()
    status = call(main, argv)
    profiler.disable()
    seconds = time.perf_counter() - started
    if status not in ok:
        raise SystemExit(f"spamnb {shlex.join(argv[:2])}... exited {status}")
    return pstats.Stats(profiler), seconds


def where(function: tuple[str, int, str], checkout: Path) -> str:
    """file:line(name), paths short: inside the checkout, site-packages or the standard library."""
    filename, line, name = function
    if filename == "~":
        return name  # a built-in, such as {method 'join' of 'str' objects}
    path = Path(filename)
    try:
        short = str(path.resolve().relative_to(checkout))
    except ValueError:
        parts = path.parts
        marker = "site-packages" if "site-packages" in parts else None
        if marker:
            short = "/".join(parts[parts.index(marker) + 1:])
        else:
            short = "/".join(parts[-2:]) if len(parts) > 1 else filename
    return f"{short}:{line}({name})"


def top_table(stats: pstats.Stats, key: str, count: int, checkout: Path, total: float) -> str:
    """Markdown: the `count` functions with the most `key` ("tottime" or "cumtime")."""
    rows = []
    for function, (primitive, calls, tottime, cumtime, _) in stats.stats.items():
        if os.path.abspath(function[0]) == os.path.abspath(__file__):
            continue  # the harness's own frame
        rows.append((tottime if key == "tottime" else cumtime, function, primitive, calls, tottime, cumtime))
    rows.sort(key=lambda row: row[0], reverse=True)
    lines = ["| function | calls | tottime s | cumtime s | % of run |", "|---|---:|---:|---:|---:|"]
    for value, function, primitive, calls, tottime, cumtime in rows[:count]:
        shown_calls = f"{calls:,}" if calls == primitive else f"{calls:,}/{primitive:,}"
        name = where(function, checkout).replace("|", "\\|")
        lines.append(f"| `{name}` | {shown_calls} | {tottime:.3f} | {cumtime:.3f} | {100 * value / total:.1f} |")
    return "\n".join(lines)


def section(title: str, stats: pstats.Stats, seconds: float, count: int, checkout: Path) -> str:
    total = stats.total_tt or seconds
    return "\n".join([
        f"### {title}",
        "",
        f"{seconds:.2f} s wall clock under the profiler, {total:.2f} s profiled. "
        "By time spent in the function itself:",
        "",
        top_table(stats, "tottime", count, checkout, total),
        "",
        "By time including what the function calls:",
        "",
        top_table(stats, "cumtime", count, checkout, total),
    ])


def main(argv=None) -> None:
    arguments = parse_arguments(argv)
    checkout = Path(arguments.checkout).resolve()
    command = shlex.join([".venv/bin/python", "bench/profile.py"] + (sys.argv[1:] if argv is None else argv))
    # The checkout's spamnb first, then bench/ (cProfile holds the stdlib's profile module by now).
    sys.path[:0] = [str(checkout), _BENCH]
    import compare
    import perf
    from benchmarks_file import publish, reproduce
    from spamnb.app import cli

    temporary = Path(tempfile.mkdtemp(prefix="spamnb-profile-"))
    try:
        corpus = perf.lay_out("spamassassin", temporary / "spamassassin", arguments.quick)
        model = temporary / "model.spamnb"
        train_jobs = ["-j", "1"] if has_jobs(cli, "train") else []
        classify_jobs = ["-j", "1"] if has_jobs(cli, "classify") else []
        train_stats, train_seconds = profiled(cli.main, ["train"] + train_jobs + [
            "--spam", str(corpus.root / "train/spam"), "--ham", str(corpus.root / "train/ham"),
            "--model", str(model), "-q"])
        classify_stats, classify_seconds = profiled(cli.main, ["classify"] + classify_jobs + [
            "--model", str(model), "--format", "jsonl", str(corpus.root / "test")], ok=(0, 4))
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
    import spamnb

    version = spamnb.__version__ + perf.commit_note(checkout)
    jobs_note = ("`-j 1`" if train_jobs else "no -j option in this build: one process") + " for train, " + \
        ("`-j 1`" if classify_jobs else "no -j option in this build: one process") + " for classify"
    text = "\n".join([
        "## Profile (issue 4)",
        "",
        ("**--quick smoke run: every 10th message.**\n\n" if arguments.quick else "")
        + f"cProfile of spamnb {version} run in-process through `spamnb.app.cli.main` ({jobs_note}), on "
        f"content-header copies of bench/corpora.py's spamassassin split. The profiler's own cost inflates "
        "functions that are called very often.",
        "",
        section(f"`spamnb train` on spamassassin's 70 % ({corpus.train_count:,} messages)",
                train_stats, train_seconds, arguments.top, checkout),
        "",
        section(f"`spamnb classify --format jsonl` on its 30 % ({len(corpus.test):,} messages)",
                classify_stats, classify_seconds, arguments.top, checkout),
        "",
        f"Machine: {compare.machine()}. Run {datetime.date.today().isoformat()}.",
        "",
        *reproduce(command),
    ])
    publish("profile", text, arguments.write)


if __name__ == "__main__":
    main()
