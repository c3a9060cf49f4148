"""Speed, memory and size of spamnb against bogofilter and scikit-learn.

One run measures every speed target (BENCHMARKS.md, "Speed, memory and size") on this machine, with the peers
run in the same run, so that the ratios hold whatever the machine:

  cold-en      cold `spamnb classify --model M MSG` (fresh process), English
               mail, model trained on spamassassin: median ≤ 2× `python -c pass`.  Peers:
               bogofilter cold (`bogofilter -d DB < MSG`), `python -c pass`,
               `python -S -c pass`, the sklearn MNB script.
  cold-zh      the same for Chinese mail (a ccert_zh message; the same
               spamassassin-trained models): ≤ 2× `python -c pass`.
  cold-size    cold classify of the same English message with models of
               ~10 k, 100 k and 1 M tokens (trained on synthetic mail):
               flat, largest / smallest ≤ 1.2.
  serve        `spamnb serve --model M --socket S` running, then
               `spamnb classify --server S MSG`: median ≤ bogofilter cold.
  bulk-en      `spamnb classify -j N --format jsonl DIR` on spamassassin's
               30 %: msg/s ≥ 1.5 × bogofilter's (`bogofilter -d DB -T -b`).
  bulk-zh      the same on ccert_zh: ≥ 1.5 × bogofilter's.
  train-en     `spamnb train -j N --spam S --ham H --model M` on
               spamassassin's 70 %: msg/s ≥ bogofilter's (`-s -b` + `-n -b`).
  train-zh     the same on ccert_zh: ≥ bogofilter's.
  train-memory peak memory of `spamnb train -j N` on 75,000 synthetic
               messages: ≤ 300 MB.
  model-size   model file ≤ bogofilter's wordlist.db for the same training set.
  merge        `spamnb merge A B -o C` of two half models (no target: informative).
  scale        a table of train time, peak memory, model size and cold
               classify latency for 10 k, 100 k and 1 M synthetic messages.

Real mail is bench/corpora.py's 70/30 split of ../shared/corpora, written as
content-header copies (bench/compare.py's lay_out), the same bytes for every
tool.  Synthetic mail comes from bench/synthetic.py.  Latencies are medians
of --repeat runs, the tools taking turns so that a busy moment of the shared
machine hits them alike; throughputs are the median of 3 runs (1 with
--quick).  Peak memory is the larger of the child's own maximum resident set
(wait4 rusage) and the sampled sum of proportional set sizes of its process
tree (for -j workers).

Features that spamnb does not have yet (`train -j`, `classify -j`, `serve`,
`classify --server`, `merge`) are found from `spamnb CMD --help`; a measure
that needs a missing one says "not available in this build" (train and bulk
are then measured without -j, and the value says so).

The spamnb measured is the console script of the checkout benchmarked:
CHECKOUT/.venv/bin/spamnb, else this Python's `spamnb` script with
PYTHONPATH=CHECKOUT (how a git worktree without its own venv is run).

    .venv/bin/python bench/perf.py [--quick] [--only cold-en,bulk-en,...] [--jobs N]
                                   [--repeat N] [--checkout DIR] [--write]

--quick uses small sizes for a smoke run (a few hundred real messages, small
synthetic corpora); --write replaces the part of BENCHMARKS.md between
<!-- perf:start --> and <!-- perf:end --> (added when missing).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
# compare.py imports spamnb: this checkout's, not whichever the venv points at.
sys.path[:0] = [str(BENCH), str(BENCH.parent)]

import compare  # noqa: E402
import corpora  # noqa: E402
import synthetic  # noqa: E402
from benchmarks_file import publish, reproduce  # noqa: E402

ROOT = BENCH.parent

MEASURES = ["train-en", "train-zh", "model-size", "cold-en", "cold-zh", "serve", "bulk-en", "bulk-zh",
            "cold-size", "learn", "train-memory", "merge", "scale"]
NOT_AVAILABLE = "not available in this build"
FEATURES = {  # name: (help command, what shows it)
    "train -j": (["train", "--help"], "-j"),
    "classify -j": (["classify", "--help"], "-j"),
    "classify --server": (["classify", "--help"], "--server"),
    "serve": (["serve", "--help"], None),
    "merge": (["merge", "--help"], None),
}
TIMEOUT = 3 * 3600  # seconds for any one command (--timeout)
MEMORY_CAP = 8e9  # bytes for any one process tree (--memory-cap)


@dataclass
class Result:
    """One row of the table."""
    measure: str
    spamnb: str = "–"
    peers: str = "–"
    ratio: str = "–"
    target: str = "–"
    status: str = ""
    notes: list[str] = field(default_factory=list)


@dataclass
class Run:
    """One finished command."""
    seconds: float
    peak_bytes: int
    code: int
    stdout: bytes
    stderr: bytes


class Failed(Exception):
    """A command that exited with an unexpected status."""


class OverCap(Failed):
    """A command stopped for growing past the memory cap."""


class Unavailable(Exception):
    """A tool or feature this run does not have: the row says why."""


# ------------------------------------------------------------- running

def process_tree_bytes(root: int) -> int:
    """Sum of the proportional set sizes (else resident sizes) of `root` and its descendants."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        total += process_bytes(pid)
    return total


def process_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as rollup:
            for line in rollup:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


class TreeSampler(threading.Thread):
    """Samples a process tree's memory until stopped; keeps the peak, and
    kills the tree (its process group) when it grows past `cap` bytes, so
    that a model too large for the machine cannot make a shared machine swap."""

    def __init__(self, pid: int, cap: float, interval: float = 0.1):
        super().__init__(daemon=True)
        self.pid, self.cap, self.interval, self.peak = pid, cap, interval, 0
        self.over = False
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(self.interval):
            self.peak = max(self.peak, process_tree_bytes(self.pid))
            if self.peak > self.cap and not self.over:
                self.over = True
                try:
                    os.killpg(self.pid, signal.SIGKILL)
                except OSError:
                    pass


# The maximum resident set a process reports survives its exec, so a child
# forked from this Python (numpy and all) starts at this process's size.
# GNU time forks the command from a process of a megabyte or two instead.
TIME = shutil.which("time", path="/usr/bin:/bin")


def run(command: list[str], env: dict, stdin: Path | bytes | None = None, ok=(0,), memory: bool = False,
        timeout: float | None = None) -> Run:
    """Run a command to its end: wall seconds, status, output and, with
    `memory`, the peak memory: the larger of its maximum resident set (from
    GNU time) and the sampled size of its process tree (for workers)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.TemporaryFile() as feed, tempfile.NamedTemporaryFile() as rusage:
        if memory and TIME:
            command = [TIME, "-f", "%M", "-o", rusage.name] + command
        if isinstance(stdin, bytes):
            feed.write(stdin)
            feed.seek(0)
            source = feed
        elif stdin is not None:
            source = open(stdin, "rb")
        else:
            source = subprocess.DEVNULL
        started_group: list[int] = []
        # Started before the clock, so that its thread costs the measure nothing.
        killer = threading.Timer(timeout or TIMEOUT,
                                 lambda: started_group and os.killpg(started_group[0], signal.SIGKILL))
        killer.start()
        try:
            started = time.perf_counter()
            process = subprocess.Popen(command, stdin=source, stdout=out, stderr=err, env=env,
                                       start_new_session=True)
            started_group.append(process.pid)
            sampler = TreeSampler(process.pid, MEMORY_CAP) if memory else None
            if sampler:
                sampler.start()
            _, status, usage = os.wait4(process.pid, 0)
            seconds = time.perf_counter() - started
        finally:
            killer.cancel()
            if source not in (subprocess.DEVNULL, feed):
                source.close()
        process.returncode = os.waitstatus_to_exitcode(status)
        peak = usage.ru_maxrss * 1024  # an overestimate, without GNU time: see TIME
        if memory and TIME:
            lines = Path(rusage.name).read_text().split()
            peak = int(lines[-1]) * 1024 if lines and lines[-1].isdigit() else 0
        if sampler:
            sampler.done.set()
            sampler.join()
            peak = max(peak, sampler.peak)
        out.seek(0)
        err.seek(0)
        done = Run(seconds, peak, process.returncode, out.read(), err.read())
    if done.code not in ok:
        why = f"exited {done.code}"
        if sampler and sampler.over:
            why = f"stopped past the memory cap of {MEMORY_CAP / 1e9:g} GB"
        elif done.code in (-signal.SIGKILL, 128 + signal.SIGKILL):
            why = f"stopped after the time limit of {TIMEOUT:,.0f} s"
        lines = done.stderr.decode(errors="replace").strip().splitlines() or [""]
        print(f"{shlex.join(command)}\n  {why}:\n  " + "\n  ".join(lines[-20:]), file=sys.stderr)
        # The last line of a traceback says what went wrong.
        shown = command[5:7] if memory and TIME else command[:2]  # past GNU time's options
        error = OverCap if sampler and sampler.over else Failed
        last = f": {lines[-1][:200]}" if lines[-1] else ""
        raise error(" ".join([Path(shown[0]).name] + shown[1:2] + [why]) + last)
    return done


def latencies(commands: dict[str, tuple], repeat: int) -> dict[str, float]:
    """{name: median seconds} for {name: (command, env, stdin, ok statuses)}:
    each command once to warm the caches, then `repeat` rounds in which every
    command runs once, in turn."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for round_number in range(repeat + 1):
        for name, (command, env, stdin, ok) in commands.items():
            seconds = run(command, env, stdin, ok).seconds
            if round_number:
                times[name].append(seconds)
    return {name: statistics.median(values) for name, values in times.items()}


def latency(command: list[str], env: dict, repeat: int, stdin: Path | None = None, ok=(0,)) -> float:
    return latencies({"one": (command, env, stdin, ok)}, repeat)["one"]


# ------------------------------------------------------------ the bench

class Bench:
    """What the measures share: options, commands, and everything made once
    (laid-out corpora, trained models, synthetic mail)."""

    def __init__(self, arguments, temporary: Path):
        self.arguments = arguments
        self.quick = arguments.quick
        self.jobs = arguments.jobs
        self.repeat = arguments.repeat
        self.temp = temporary
        self.checkout = Path(arguments.checkout).resolve()
        # An installed package has its bytecode compiled; a checkout run with
        # PYTHONDONTWRITEBYTECODE set would compile spamnb at every start.
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(self.checkout / "spamnb")], check=False)
        self.env = clean_environment(temporary)
        self.spamnb, self.spamnb_env, self.spamnb_how = spamnb_command(self.checkout, self.env, temporary)
        self.python = [sys.executable]
        self.made: dict = {}
        self.tables: list[str] = []
        self.skipped: dict[str, str] = {}
        self.features = detect_features(self.spamnb, self.spamnb_env)
        self.versions = self.tool_versions()
        self.load = " ".join(f"{value:.2f}" for value in os.getloadavg())

    def once(self, key, make):
        """make() the first time `key` is asked for; the same value after."""
        if key not in self.made:
            self.made[key] = make()
        return self.made[key]

    def tool_versions(self) -> dict[str, str]:
        versions = {"spamnb": spamnb_version(self.spamnb, self.spamnb_env, self.checkout)}
        try:
            versions["bogofilter"] = compare.ensure_bogofilter()
        except Exception as error:
            self.skipped["bogofilter"] = str(error)
        try:
            versions["sklearn"] = "scikit-learn {}, jieba {}".format(*compare.sklearn_versions())
        except Exception as error:
            self.skipped["sklearn"] = str(error)
        return versions

    def has(self, tool: str) -> bool:
        return tool not in self.skipped

    def need(self, tool: str) -> None:
        if not self.has(tool):
            raise Unavailable(f"{tool} skipped: {self.skipped[tool]}")

    def jobs_option(self, command: str) -> list[str]:
        return ["-j", str(self.jobs)] if self.features[f"{command} -j"] else []


def clean_environment(temporary: Path) -> dict:
    """This environment without SPAMNB_* settings and with an empty config
    home, so that no personal settings change what is measured."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("SPAMNB_")}
    config = temporary / "config"
    config.mkdir(exist_ok=True)
    env["XDG_CONFIG_HOME"] = str(config)
    env["XDG_DATA_HOME"] = str(config)
    return env


def spamnb_command(checkout: Path, env: dict, temporary: Path) -> tuple[list[str], dict, str]:
    """(command, environment, how): the checkout's own console script; for a
    checkout with no venv of its own (a git worktree), the script pip would
    write for the entry point in its pyproject.toml, run by this Python with
    the checkout first on the import path."""
    own = checkout / ".venv" / "bin" / "spamnb"
    if own.exists():
        return [str(own)], env, f"`{own}`"
    import tomllib

    entry = tomllib.loads((checkout / "pyproject.toml").read_text())["project"]["scripts"]["spamnb"]
    module, function = entry.split(":")
    script = temporary / "bin" / "spamnb"
    script.parent.mkdir(exist_ok=True)
    # pip's own template (pip._internal.operations.install.wheel.PipScriptMaker,
    # pip 26), which no longer imports `re`: distlib's older one did, and
    # `import re` is 8 ms of a fresh process here, which the installed
    # command does not pay.
    script.write_text(f"#!{sys.executable}\nimport sys\nfrom {module} import {function}\n"
                      "if __name__ == '__main__':\n"
                      "    sys.argv[0] = sys.argv[0].removesuffix('.exe')\n"
                      f"    sys.exit({function}())\n")
    script.chmod(0o755)
    env = dict(env, PYTHONPATH=os.pathsep.join([str(checkout)] + [p for p in [env.get("PYTHONPATH")] if p]))
    return [str(script)], env, (f"a console script for `{entry}` (as pip writes it) run by {sys.executable} "
                                f"with PYTHONPATH={checkout}")


def spamnb_version(command: list[str], env: dict, checkout: Path) -> str:
    return run(command + ["--version"], env).stdout.decode().strip().split()[-1] + commit_note(checkout)


def commit_note(checkout: Path) -> str:
    """" (commit abc1234)", since spamnb/ changes faster than its version."""
    try:
        commit = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
        changed = subprocess.run(["git", "-C", str(checkout), "status", "--porcelain", "--", "spamnb"],
                                 capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""
    return f" (commit {commit}{', with uncommitted changes in spamnb/' if changed else ''})"


def detect_features(command: list[str], env: dict) -> dict[str, bool]:
    """{feature: present}, from each command's --help."""
    found = {}
    for name, (arguments, mark) in FEATURES.items():
        done = subprocess.run(command + arguments, capture_output=True, text=True, env=env)
        if mark is None:
            found[name] = done.returncode == 0
        else:
            found[name] = done.returncode == 0 and bool(
                re.search(rf"(^|[\s,\[]){re.escape(mark)}\b", done.stdout, re.MULTILINE))
    return found


# ------------------------------------------------------- corpora, models

@dataclass
class Corpus:
    """A real corpus laid out on disk: train/spam/, train/ham/, test/ and list files."""
    name: str
    root: Path
    train_spam: list[Path]
    train_ham: list[Path]
    test: list[Path]

    @property
    def train_count(self) -> int:
        return len(self.train_spam) + len(self.train_ham)

    def list_file(self, name: str, paths: list[Path]) -> Path:
        path = self.root / f"{name}.list"
        if not path.exists():
            path.write_text(compare.names(paths))
        return path

    def cold_message(self) -> Path:
        """The test message of median size: one message every tool classifies cold."""
        by_size = sorted(self.test, key=lambda path: (path.stat().st_size, path.name))
        return by_size[len(by_size) // 2]


def lay_out(name: str, root: Path, quick: bool = False) -> Corpus:
    """bench/corpora.py's split of a real corpus as content-header copies
    (compare.py's), under neutral numbered names; with `quick` every 10th
    training and every 6th test message."""
    if name not in corpora.available():
        raise Unavailable(f"corpus {name} not found in {corpora.CORPORA}")
    train, test = corpora.split(name)
    if quick:
        train, test = train[::10], test[::6]
    corpus = Corpus(name, root, [], [], [])
    for folder in ("train/spam", "train/ham", "test"):
        (root / folder).mkdir(parents=True)
    for number, (label, source) in enumerate(train):
        target = root / "train" / ("spam" if label else "ham") / f"{number:05d}"
        compare.write_message(source, target, "content")
        (corpus.train_spam if label else corpus.train_ham).append(target)
    for number, (label, source) in enumerate(test):
        target = root / "test" / f"{number:05d}"
        compare.write_message(source, target, "content")
        corpus.test.append(target)
    return corpus


def real_corpus(bench: Bench, name: str) -> Corpus:
    return bench.once(("corpus", name), lambda: lay_out(name, bench.temp / name, bench.quick))


def train_spamnb(bench: Bench, spam: Path, ham: Path, model: Path, jobs: bool = True) -> Run:
    command = bench.spamnb + ["train"] + (bench.jobs_option("train") if jobs else []) + \
        ["--spam", str(spam), "--ham", str(ham), "--model", str(model), "-q"]
    return run(command, bench.spamnb_env, memory=True)


def train_bogofilter(bench: Bench, database: Path, spam, ham, mbox: bool = False) -> Run:
    """Register spam then ham (file lists with -b, or mbox files with -M); one Run for both."""
    bench.need("bogofilter")
    database.mkdir(parents=True, exist_ok=True)
    base = ["bogofilter", "-C", "-d", str(database)]
    mode = "-M" if mbox else "-b"
    first = run(base + ["-s", mode], bench.env, spam, memory=True)
    second = run(base + ["-n", mode], bench.env, ham, memory=True)
    return Run(first.seconds + second.seconds, max(first.peak_bytes, second.peak_bytes), 0, b"", b"")


def spamnb_model(bench: Bench, name: str) -> tuple[Path, Run]:
    def make():
        corpus = real_corpus(bench, name)
        model = bench.temp / f"{name}.spamnb"
        done = train_spamnb(bench, corpus.root / "train/spam", corpus.root / "train/ham", model)
        return model, done
    return bench.once(("spamnb", name), make)


def bogofilter_database(bench: Bench, name: str) -> tuple[Path, Run]:
    def make():
        corpus = real_corpus(bench, name)
        database = bench.temp / f"{name}-bogofilter"
        done = train_bogofilter(bench, database, corpus.list_file("spam", corpus.train_spam),
                                corpus.list_file("ham", corpus.train_ham))
        return database, done
    return bench.once(("bogofilter", name), make)


def sklearn_model(bench: Bench, name: str) -> tuple[Path, Run]:
    def make():
        bench.need("sklearn")
        corpus = real_corpus(bench, name)
        model = bench.temp / f"{name}-sklearn.pickle"
        done = run(bench.python + [str(BENCH / "sklearn_mnb.py"), "train",
                                   "--spam-list", str(corpus.list_file("spam", corpus.train_spam)),
                                   "--ham-list", str(corpus.list_file("ham", corpus.train_ham)),
                                   "--model", str(model)], bench.env, memory=True)
        return model, done
    return bench.once(("sklearn", name), make)


def synthetic_corpus(bench: Bench, messages: int) -> tuple[Path, Path]:
    given = Path(bench.arguments.synthetic or "/nonexistent") / f"synthetic-{messages}"
    if (given / "spam.mbox").exists() and (given / "ham.mbox").exists():
        # Written before by `bench/synthetic.py --messages N --out DIR/synthetic-N` (seed 1, the
        # same bytes as below): a million messages take 10-15 minutes to write on this machine.
        return given / "spam.mbox", given / "ham.mbox"

    def make():
        folder = bench.temp / f"synthetic-{messages}"
        ok, why = synthetic.fits(folder, messages)
        if not ok:
            raise Unavailable(f"skipped: {why}")
        started = time.perf_counter()
        paths = synthetic.write_corpus(folder, messages, seed=1)
        print(f"  synthetic mail: {messages:,} messages in {time.perf_counter() - started:.1f} s",
              file=sys.stderr, flush=True)
        return paths
    return bench.once(("synthetic", messages), make)


def vocabulary(bench: Bench, model: Path) -> int:
    try:  # the header says it; `inspect` would load every section of a model of gigabytes
        sys.path.insert(0, str(Path(bench.arguments.checkout)))
        from spamnb.model.modelread import read_model

        return int(read_model(model, verify=False).meta["vocabulary"])
    except (ImportError, KeyError, ValueError, OSError):
        pass
    finally:
        sys.path.pop(0)
    done = run(bench.spamnb + ["inspect", "--model", str(model), "--top", "0", "--format", "json"],
               bench.spamnb_env)
    return int(json.loads(done.stdout)["summary"]["vocabulary"])


# ------------------------------------------------------------ formatting

def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def mb(size: float) -> str:
    return f"{size / 1e6:.1f} MB"


def rate(value: float) -> str:
    return f"{value:,.0f} msg/s"


def verdict(met: bool) -> str:
    return "met" if met else "not met"


def file_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else path.stat().st_size


# ------------------------------------------------------------ measures

def measure_train(bench: Bench, name: str) -> list[Result]:
    title = f"train, {name} ({'-j %d' % bench.jobs if bench.features['train -j'] else 'one process'})"
    corpus = real_corpus(bench, name)
    model, done = spamnb_model(bench, name)
    value = corpus.train_count / done.seconds
    result = Result(title, f"{rate(value)}, {mb(done.peak_bytes)} peak")
    peers = []
    bogofilter_rate = None
    if bench.has("bogofilter"):
        _, bogo = bogofilter_database(bench, name)
        bogofilter_rate = corpus.train_count / bogo.seconds
        peers.append(f"bogofilter {rate(bogofilter_rate)}, {mb(bogo.peak_bytes)}")
    if bench.has("sklearn"):
        _, learned = sklearn_model(bench, name)
        peers.append(f"sklearn MNB {rate(corpus.train_count / learned.seconds)}, {mb(learned.peak_bytes)}")
    result.peers = "; ".join(peers) or "–"
    if bogofilter_rate:
        result.ratio = f"{value / bogofilter_rate:.2f}× bogofilter"
    result.target = "≥ 1× bogofilter"
    met = bogofilter_rate is not None and value >= bogofilter_rate
    result.status = verdict(met) if bench.features["train -j"] else f"{NOT_AVAILABLE} (-j); {verdict(met)}"
    result.notes.append(f"{title}: {corpus.train_count:,} messages in {done.seconds:.2f} s")
    return [result]


def measure_model_size(bench: Bench) -> list[Result]:
    results = []
    for name in ("spamassassin", "ccert_zh"):
        try:
            model, _ = spamnb_model(bench, name)
        except Unavailable as why:
            results.append(Result(f"model size, {name}", status=f"skipped: {why}"))
            continue
        size = model.stat().st_size
        result = Result(f"model size, {name} 70 %", mb(size), target="≤ 1× bogofilter wordlist.db")
        if bench.has("bogofilter"):
            database, _ = bogofilter_database(bench, name)
            other = (database / "wordlist.db").stat().st_size
            result.peers, result.ratio = f"bogofilter {mb(other)}", f"{size / other:.2f}×"
            result.status = verdict(size <= other)
        else:
            result.status = f"no peer: bogofilter skipped ({bench.skipped['bogofilter']})"
        try:
            result.notes.append(f"model size, {name}: spamnb vocabulary {vocabulary(bench, model):,} tokens")
        except Failed:
            pass
        results.append(result)
    return results


def measure_cold(bench: Bench, name: str) -> list[Result]:
    """Cold classify of the median-size test message of corpus `name`; every
    tool's model is trained on spamassassin, as the speed target is set."""
    language = {"spamassassin": "English", "ccert_zh": "Chinese"}[name]
    message = real_corpus(bench, name).cold_message()
    corpus = real_corpus(bench, "spamassassin")
    model, _ = spamnb_model(bench, "spamassassin")
    commands = {"spamnb": (bench.spamnb + ["classify", "--model", str(model), str(message)],
                           bench.spamnb_env, None, (0,))}
    if bench.has("bogofilter"):
        database, _ = bogofilter_database(bench, "spamassassin")
        commands["bogofilter"] = (["bogofilter", "-C", "-d", str(database)], bench.env, message, (0, 1, 2))
    commands["python -c pass"] = (bench.python + ["-c", "pass"], bench.env, None, (0,))
    commands["python -S -c pass"] = (bench.python + ["-S", "-c", "pass"], bench.env, None, (0,))
    if bench.has("sklearn"):
        pickle, _ = sklearn_model(bench, "spamassassin")
        commands["sklearn MNB"] = (bench.python + [str(BENCH / "sklearn_mnb.py"), "classify", "--model",
                                                   str(pickle), str(message)], bench.env, None, (0,))
    medians = latencies(commands, bench.repeat)
    # The same venv's bare interpreter start, measured in the same run: what
    # no Python program can beat, so the target is a ratio to it.
    limit = 2 * medians["python -c pass"]
    value = medians.pop("spamnb")
    result = Result(f"cold classify, {language} (1 message)", ms(value),
                    "; ".join(f"{tool} {ms(seconds)}" for tool, seconds in medians.items()),
                    target="≤ 2× python -c pass", status=verdict(value <= limit))
    if "bogofilter" in medians:
        result.ratio = f"{value / medians['bogofilter']:.1f}× bogofilter"
    result.notes.append(f"cold classify, {language}: median of {bench.repeat} runs on {message.name} "
                        f"({message.stat().st_size:,} bytes, the median-size {name} test message), "
                        f"every tool's model trained on spamassassin's {corpus.train_count:,} training messages")
    return [result]


def measure_serve(bench: Bench) -> list[Result]:
    title = "warm classify via `serve` (1 message)"
    if not (bench.features["serve"] and bench.features["classify --server"]):
        missing = [f for f in ("serve", "classify --server") if not bench.features[f]]
        return [Result(title, target="≤ 1× bogofilter cold", status=f"{NOT_AVAILABLE} ({', '.join(missing)})")]
    corpus = real_corpus(bench, "spamassassin")
    model, _ = spamnb_model(bench, "spamassassin")
    message = corpus.cold_message()
    path = bench.temp / "serve.sock"
    server = subprocess.Popen(bench.spamnb + ["serve", "--model", str(model), "--socket", str(path)],
                              env=bench.spamnb_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              start_new_session=True)
    try:
        client = bench.spamnb + ["classify", "--server", str(path), str(message)]
        wait_for_server(path, server, client, bench.spamnb_env, 60)
        commands = {"spamnb": (client, bench.spamnb_env, None, (0,))}
        if bench.has("bogofilter"):
            database, _ = bogofilter_database(bench, "spamassassin")
            commands["bogofilter"] = (["bogofilter", "-C", "-d", str(database)], bench.env, message, (0, 1, 2))
        medians = latencies(commands, bench.repeat)
        messages = [str(p) for p in corpus.test[: 200 if bench.quick else 1000]]
        warm = json.loads(run(bench.python + ["-c", WARM_CLIENT, str(path), *messages], bench.spamnb_env).stdout)
        warm_median, warm_p95, warm_count = warm["median"], warm["p95"], warm["count"]
        check = run(client, bench.spamnb_env).stdout
        direct = run(bench.spamnb + ["classify", "--model", str(model), str(message)], bench.spamnb_env).stdout
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
    cold = medians.get("bogofilter")
    # The target: a message's latency with the model warm in the server, over
    # a kept connection (what a milter or a long-lived client sees).  A fresh
    # `classify --server` process also pays Python's start, reported below.
    result = Result(title, ms(warm_median), target="≤ 1× bogofilter cold")
    if cold is not None:
        result.peers, result.ratio = f"bogofilter cold {ms(cold)}", f"{warm_median / cold:.2f}×"
        result.status = verdict(warm_median <= cold)
    else:
        result.status = "no peer: bogofilter skipped"
    result.notes.append(f"serve: per message over one connection, {warm_count} spamassassin test messages: "
                        f"median {ms(warm_median)}, 95th percentile {ms(warm_p95)}; a fresh "
                        f"`spamnb classify --server` process: median {ms(medians['spamnb'])}")
    if check.split() != direct.split():
        result.notes.append(f"serve: the server's answer differs from a cold classify: {check[:120]!r} "
                            f"against {direct[:120]!r}")
    return [result]


WARM_CLIENT = """
import json, statistics, sys, time
from spamnb.app.server import Client
client = Client(sys.argv[1])
times = []
for path in sys.argv[2:]:
    data = open(path, "rb").read()
    started = time.perf_counter()
    client.score(data)
    times.append(time.perf_counter() - started)
times.sort()
print(json.dumps({"median": statistics.median(times), "p95": times[int(0.95 * (len(times) - 1))],
                  "count": len(times)}))
"""


def wait_for_server(path: Path, server: subprocess.Popen, client: list[str], env: dict, seconds: float) -> None:
    """Until the first `classify --server` answers (the server may still be
    loading its model), or the server exits, or `seconds` pass."""
    deadline = time.monotonic() + seconds
    while True:
        if server.poll() is not None:
            raise Failed(f"spamnb serve exited {server.returncode}: "
                         f"{server.stderr.read().decode(errors='replace').strip()[-300:]}")
        if path.exists():
            try:
                run(client, env, timeout=seconds)
                return
            except Failed:
                if time.monotonic() > deadline:
                    raise
        elif time.monotonic() > deadline:
            raise Failed(f"spamnb serve made no socket at {path} in {seconds:.0f} s")
        time.sleep(0.1)


def median_run(bench: Bench, command: list[str], env: dict, stdin=None, ok=(0,)) -> Run:
    runs = [run(command, env, stdin, ok) for _ in range(1 if bench.quick else 3)]
    return sorted(runs, key=lambda r: r.seconds)[len(runs) // 2]


def measure_bulk(bench: Bench, name: str) -> list[Result]:
    corpus = real_corpus(bench, name)
    model, _ = spamnb_model(bench, name)
    parallel = bench.features["classify -j"]
    title = f"bulk classify, {name} ({'-j %d' % bench.jobs if parallel else 'one process'})"
    command = bench.spamnb + ["classify"] + bench.jobs_option("classify") + \
        ["--model", str(model), "--format", "jsonl", str(corpus.root / "test")]
    done = median_run(bench, command, bench.spamnb_env, ok=(0, 4))
    count = len(corpus.test)
    value = count / done.seconds
    result = Result(title, rate(value))
    peers = []
    bogofilter_rate = None
    if bench.has("bogofilter"):
        database, _ = bogofilter_database(bench, name)
        bogo = median_run(bench, ["bogofilter", "-C", "-d", str(database), "-T", "-b"], bench.env,
                          corpus.list_file("test", corpus.test), ok=(0, 1, 2, 3))
        bogofilter_rate = count / bogo.seconds
        peers.append(f"bogofilter {rate(bogofilter_rate)}")
        result.ratio = f"{value / bogofilter_rate:.2f}× bogofilter"
    if bench.has("sklearn"):
        pickle, _ = sklearn_model(bench, name)
        test_list = corpus.list_file("test", corpus.test)
        learned = median_run(bench, bench.python + [str(BENCH / "sklearn_mnb.py"), "classify", "--model",
                                                    str(pickle), "--list", str(test_list)], bench.env)
        peers.append(f"sklearn MNB {rate(count / learned.seconds)}")
    result.peers = "; ".join(peers) or "–"
    result.target = "≥ 1.5× bogofilter"
    met = bogofilter_rate is not None and value >= 1.5 * bogofilter_rate
    result.status = verdict(met) if parallel else f"{NOT_AVAILABLE} (-j); {verdict(met)}"
    lines = done.stdout.count(b"\n")
    result.notes.append(f"{title}: {count:,} messages in {done.seconds:.2f} s"
                        + (f"; {lines:,} jsonl lines, not {count:,}" if lines != count else ""))
    return [result]


def cold_size_targets(bench: Bench) -> list[int]:
    return [10_000, 100_000] if bench.quick else [10_000, 100_000, 1_000_000]


def size_model(bench: Bench, tokens: int) -> tuple[Path, int, int]:
    """(model, vocabulary, messages): a model trained on enough synthetic mail
    for about `tokens` tokens; the messages needed are guessed from a first
    small model and corrected once."""
    def make():
        per_message = bench.once("tokens per message", lambda: probe_tokens_per_message(bench))
        messages = max(20, round(tokens / per_message))
        for attempt in range(3):
            model, size = train_synthetic_model(bench, messages)
            if 0.7 * tokens <= size <= 1.4 * tokens or attempt == 2:
                return model, size, messages
            messages = max(20, round(messages * (tokens / size) ** 1.1))
        raise AssertionError("unreachable")
    return bench.once(("size model", tokens), make)


def probe_tokens_per_message(bench: Bench) -> float:
    _, size = train_synthetic_model(bench, 200)
    return size / 200


def train_synthetic_model(bench: Bench, messages: int) -> tuple[Path, int]:
    spam, ham = synthetic.write_corpus(bench.temp / "size-corpus", messages, seed=2)
    model = bench.temp / f"size-{messages}.spamnb"
    train_spamnb(bench, spam, ham, model)
    return model, vocabulary(bench, model)


LEARN_PEAK_RUNS = 3
"""Fresh learns, after the timed ones, whose peak memory is taken."""


def learn_latencies(bench: Bench, model: Path, messages: list[Path], database: Path | None) -> dict:
    """{tool: median seconds} of learning one message as spam in a fresh process,
    each run a different test message into the same growing model (as a mail
    flow learns), the tools taking turns."""
    import statistics

    spamnb_model_copy = bench.temp / f"learn-{model.name}"
    shutil.copyfile(model, spamnb_model_copy)
    times: dict[str, list[float]] = {"spamnb": []}
    if database is not None:
        bogofilter_copy = bench.temp / f"learn-bogofilter-{model.name}"
        shutil.rmtree(bogofilter_copy, ignore_errors=True)
        shutil.copytree(database, bogofilter_copy)
        times["bogofilter"] = []
    def learn(message: Path, memory: bool) -> Run:
        return run(bench.spamnb + ["learn", "-q", "--spam", str(message), "--model", str(spamnb_model_copy)],
                   bench.spamnb_env, memory=memory)

    # Timed bare, as bogofilter is: GNU time's own fork and exec and the
    # sampling thread cost a fresh learn 1.2-1.7 ms of wall time (31
    # alternating runs each way).  The peak comes from runs of their own.
    for message in messages[:bench.repeat]:
        times["spamnb"].append(learn(message, memory=False).seconds)
        if database is not None:
            times["bogofilter"].append(run(["bogofilter", "-s", "-d", str(bogofilter_copy)], bench.env,
                                           stdin=message).seconds)
    medians = {tool: statistics.median(values) for tool, values in times.items()}
    medians["peak"] = max(learn(message, memory=True).peak_bytes
                          for message in messages[bench.repeat:bench.repeat + LEARN_PEAK_RUNS])
    return medians


def measure_learn(bench: Bench) -> list[Result]:
    """`learn` of one message in a fresh process: into the spamassassin model
    against bogofilter, and into a model of about a million tokens."""
    corpus = real_corpus(bench, "spamassassin")
    model, _ = spamnb_model(bench, "spamassassin")
    database = bogofilter_database(bench, "spamassassin")[0] if bench.has("bogofilter") else None
    messages = sorted(corpus.test, key=lambda path: path.name)
    medians = learn_latencies(bench, model, messages, database)
    value = medians["spamnb"]
    first = Result("learn one message, spamassassin model", f"{ms(value)}, {mb(medians['peak'])} peak",
                   f"bogofilter {ms(medians['bogofilter'])}" if "bogofilter" in medians else "–",
                   target="≤ 20 ms", status=verdict(value <= 0.020))
    if "bogofilter" in medians:
        first.ratio = f"{value / medians['bogofilter']:.1f}× bogofilter"
    first.notes.append(f"learn one message: median of {bench.repeat} fresh `spamnb learn --spam` runs, each a "
                       f"different spamassassin test message, into a copy of the model trained on its "
                       f"{corpus.train_count:,} training messages (bogofilter -s into a copy of its database); "
                       f"timed bare, the peak from {LEARN_PEAK_RUNS} further runs under GNU time")
    tokens = 1_000_000 if not bench.quick else 100_000
    big, size, trained = size_model(bench, tokens)
    big_medians = learn_latencies(bench, big, messages, None)
    second = Result(f"learn one message, model of {size:,} tokens",
                    f"{ms(big_medians['spamnb'])}, {mb(big_medians['peak'])} peak", target="≤ 20 ms",
                    status=verdict(big_medians["spamnb"] <= 0.020))
    second.notes.append(f"learn into a model of {size:,} tokens ({trained:,} synthetic messages, "
                        f"{mb(big.stat().st_size)}): median {ms(big_medians['spamnb'])}")
    return [first, second]


def measure_cold_size(bench: Bench) -> list[Result]:
    message = real_corpus(bench, "spamassassin").cold_message()
    values, sizes, notes = [], [], []
    for tokens in cold_size_targets(bench):
        model, size, messages = size_model(bench, tokens)
        command = bench.spamnb + ["classify", "--model", str(model), str(message)]
        values.append(latency(command, bench.spamnb_env, bench.repeat))
        sizes.append(size)
        notes.append(f"{size:,} tokens ({messages:,} synthetic messages, {mb(model.stat().st_size)}): "
                     f"{ms(values[-1])}")
    result = Result("cold classify vs model size (" + " / ".join(f"{s / 1000:,.0f} k" for s in sizes) + " tokens)",
                    " / ".join(ms(v) for v in values), target="flat: ≤ 1.2× from smallest to largest")
    ratio = values[-1] / values[0]
    result.ratio = f"{ratio:.2f}× largest / smallest"
    result.status = verdict(ratio <= 1.2)
    result.notes.append("cold classify vs model size, same English message: " + "; ".join(notes))
    return [result]


def measure_train_memory(bench: Bench) -> list[Result]:
    messages = 3_000 if bench.quick else bench.arguments.train_memory_messages
    title = f"train peak memory, {messages:,} synthetic messages" + \
        (f" (-j {bench.jobs})" if bench.features["train -j"] else " (one process)")
    spam, ham = synthetic_corpus(bench, messages)
    model = bench.temp / f"memory-{messages}.spamnb"
    try:
        done = train_spamnb(bench, spam, ham, model)
    except OverCap as error:
        return [Result(title, f"> {mb(MEMORY_CAP)}", target="≤ 300 MB", status="not met",
                       notes=[f"{title}: {error}"])]
    result = Result(title, mb(done.peak_bytes), target="≤ 300 MB")
    if bench.has("bogofilter"):
        bogo = train_bogofilter(bench, bench.temp / f"memory-{messages}-bogofilter", spam, ham, mbox=True)
        result.peers, result.ratio = f"bogofilter {mb(bogo.peak_bytes)}", f"{done.peak_bytes / bogo.peak_bytes:.1f}×"
    met = done.peak_bytes <= 300e6
    result.status = verdict(met) if bench.features["train -j"] else f"{NOT_AVAILABLE} (-j); {verdict(met)}"
    if bench.quick:
        result.notes.append(f"{title}: --quick, so {messages:,} messages")
    result.notes.append(f"{title}: {done.seconds:.1f} s, {rate(messages / done.seconds)}, "
                        f"model {mb(model.stat().st_size)}")
    return [result]


def measure_merge(bench: Bench) -> list[Result]:
    title = "merge two half models (spamassassin 70 %)"
    if not bench.features["merge"]:
        return [Result(title, status=NOT_AVAILABLE)]
    corpus = real_corpus(bench, "spamassassin")
    whole, trained = spamnb_model(bench, "spamassassin")
    halves = []
    for number in (0, 1):
        folder = bench.temp / f"half-{number}"
        for label, paths in (("spam", corpus.train_spam), ("ham", corpus.train_ham)):
            (folder / label).mkdir(parents=True, exist_ok=True)
            for path in paths[number::2]:
                os.symlink(path, folder / label / path.name)
        halves.append(bench.temp / f"half-{number}.spamnb")
        train_spamnb(bench, folder / "spam", folder / "ham", halves[-1])
    merged = bench.temp / "merged.spamnb"
    done = run(bench.spamnb + ["merge", str(halves[0]), str(halves[1]), "-o", str(merged)], bench.spamnb_env,
               memory=True)
    result = Result(title, f"{ms(done.seconds)}, {mb(done.peak_bytes)} peak",
                    f"training the whole: {trained.seconds:.2f} s", f"{done.seconds / trained.seconds:.2f}×",
                    "– (informative)", "measured")
    result.notes.append(f"merge: merged model {mb(merged.stat().st_size)}, vocabulary "
                        f"{vocabulary(bench, merged):,}; trained whole {mb(whole.stat().st_size)}, "
                        f"vocabulary {vocabulary(bench, whole):,}")
    return [result]


def scale_sizes(bench: Bench) -> list[int]:
    if bench.arguments.scale:
        return bench.arguments.scale
    return [1_000, 3_000] if bench.quick else [10_000, 100_000, 1_000_000]


def measure_scale(bench: Bench) -> list[Result]:
    message = real_corpus(bench, "spamassassin").cold_message()
    rows = ["| messages | tool | train s | msg/s | peak memory | model size | vocabulary | cold classify |",
            "|---:|---|---:|---:|---:|---:|---:|---:|"]
    for messages in scale_sizes(bench):
        try:
            spam, ham = synthetic_corpus(bench, messages)
        except Unavailable as why:
            rows.append(f"| {messages:,} | all | {cell(why)} | | | | | |")
            continue
        print(f"  scale {messages:,}: spamnb", file=sys.stderr, flush=True)
        model = bench.temp / f"scale-{messages}.spamnb"
        try:
            done = train_spamnb(bench, spam, ham, model)
            cold = latency(bench.spamnb + ["classify", "--model", str(model), str(message)], bench.spamnb_env,
                           bench.repeat)
            rows.append(f"| {messages:,} | spamnb | {done.seconds:.1f} | {rate(messages / done.seconds)[:-6]} | "
                        f"{mb(done.peak_bytes)} | {mb(model.stat().st_size)} | {vocabulary(bench, model):,} | "
                        f"{ms(cold)} |")
        except Failed as error:
            rows.append(f"| {messages:,} | spamnb | error: {cell(error)} | | | | | |")
        model.unlink(missing_ok=True)
        if bench.has("bogofilter") and messages <= (bench.arguments.scale_peers_up_to or messages):
            print(f"  scale {messages:,}: bogofilter", file=sys.stderr, flush=True)
            database = bench.temp / f"scale-{messages}-bogofilter"
            try:
                done = train_bogofilter(bench, database, spam, ham, mbox=True)
                cold = latency(["bogofilter", "-C", "-d", str(database)], bench.env, bench.repeat, message,
                               (0, 1, 2))
                words = run(["bogoutil", "-d", str(database / "wordlist.db")], bench.env).stdout.count(b"\n")
                rows.append(f"| {messages:,} | bogofilter | {done.seconds:.1f} | "
                            f"{rate(messages / done.seconds)[:-6]} | {mb(done.peak_bytes)} | "
                            f"{mb(file_bytes(database))} | {words:,} | {ms(cold)} |")
            except Failed as error:
                rows.append(f"| {messages:,} | bogofilter | error: {cell(error)} | | | | | |")
            shutil.rmtree(database, ignore_errors=True)
        # The largest corpora take gigabytes: gone once measured (not those given with --synthetic).
        if bench.temp in spam.parents:
            shutil.rmtree(spam.parent, ignore_errors=True)
        bench.made.pop(("synthetic", messages), None)
    bench.tables.append("Scale, on synthetic mail (bench/synthetic.py; half spam, half ham; "
                        f"spamnb {'-j %d' % bench.jobs if bench.features['train -j'] else 'in one process'}; "
                        "cold classify of the English test message as in cold-en, median of "
                        f"{bench.repeat}):\n\n" + "\n".join(rows))
    return []


def run_measure(bench: Bench, name: str) -> list[Result]:
    functions = {
        "train-en": lambda: measure_train(bench, "spamassassin"),
        "train-zh": lambda: measure_train(bench, "ccert_zh"),
        "model-size": lambda: measure_model_size(bench),
        "cold-en": lambda: measure_cold(bench, "spamassassin"),
        "cold-zh": lambda: measure_cold(bench, "ccert_zh"),
        "serve": lambda: measure_serve(bench),
        "bulk-en": lambda: measure_bulk(bench, "spamassassin"),
        "bulk-zh": lambda: measure_bulk(bench, "ccert_zh"),
        "cold-size": lambda: measure_cold_size(bench),
        "learn": lambda: measure_learn(bench),
        "train-memory": lambda: measure_train_memory(bench),
        "merge": lambda: measure_merge(bench),
        "scale": lambda: measure_scale(bench),
    }
    started = time.perf_counter()
    print(f"[{name}] running", file=sys.stderr, flush=True)
    try:
        results = functions[name]()
    except Unavailable as why:
        results = [Result(name, status=str(why) if str(why).startswith("skipped") else f"skipped: {why}")]
    except Exception as error:  # one measure failing leaves the others standing
        import traceback

        traceback.print_exc(file=sys.stderr)
        text = str(error).splitlines()[0][:200] if str(error) else type(error).__name__
        results = [Result(name, status=f"error: {text}")]
    for result in results:
        print(f"[{name}] {result.measure}: {result.spamnb} | {result.peers} | {result.status}",
              file=sys.stderr, flush=True)
    print(f"[{name}] {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    return results


# ------------------------------------------------------------ the report

def cell(text: str) -> str:
    """Text that cannot break a markdown table row."""
    return " ".join(str(text).split()).replace("|", "\\|")


def table(results: list[Result]) -> str:
    lines = ["| measure | spamnb | peers | ratio | target | status |", "|---|---:|---|---:|---|---|"]
    for r in results:
        lines.append("| " + " | ".join(cell(text) for text in (r.measure, r.spamnb, r.peers, r.ratio, r.target,
                                                                    r.status)) + " |")
    return "\n".join(lines)


def report(bench: Bench, results: list[Result], command: str, seconds: float) -> str:
    features = ", ".join(f"`{name}` {'yes' if present else 'no'}" for name, present in bench.features.items())
    versions = "; ".join(f"{tool} {version}" if tool != "sklearn" else version
                         for tool, version in bench.versions.items())
    sizes = []
    for name in ("spamassassin", "ccert_zh"):
        corpus = bench.made.get(("corpus", name))
        if corpus:
            sizes.append(f"{name} train {corpus.train_count:,}, test {len(corpus.test):,}")
    notes = [note for result in results for note in result.notes]
    notes += [f"{tool} skipped: {why}" for tool, why in bench.skipped.items()]
    parts = [
        "## Speed, memory and size (issue 4)",
        "",
        ("**--quick smoke run: small sizes, not the figures to judge by.**\n\n" if bench.quick else "")
        + f"spamnb run as {bench.spamnb_how}; -j {bench.jobs} where the build has it. "
        f"Features in this build: {features}. Real mail: {'; '.join(sizes) or 'none used'} "
        "(content-header copies of bench/corpora.py's split). Latencies are medians of "
        f"{bench.repeat} runs with the tools taking turns; throughputs the median of "
        f"{1 if bench.quick else 3} runs; peak memory is the largest of the process's own maximum "
        "resident set and the sampled proportional set size of its process tree.",
        "",
        table(results),
        "",
    ]
    parts += [text + "\n" for text in bench.tables]
    parts += ["\n".join(f"- {note}" for note in notes), ""] if notes else []
    parts += [
        f"Machine: {compare.machine()}; load average at the start {bench.load}; {versions}. "
        f"Run {datetime.date.today().isoformat()}, {seconds / 60:.1f} minutes in all.",
        "",
        *reproduce(command),
    ]
    return "\n".join(parts)


def parse_arguments(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--only", type=lambda text: [name.strip() for name in text.split(",") if name.strip()],
                        help="comma list of measures: " + ", ".join(MEASURES))
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    parser.add_argument("--jobs", "-j", type=int, default=cores, help=f"-j for spamnb (default: all cores, {cores})")
    parser.add_argument("--repeat", type=int, default=None,
                        help="runs per latency median (default 21; 3 with --quick)")
    parser.add_argument("--scale", type=lambda text: [int(n.replace("_", "")) for n in text.split(",")],
                        help="message counts of the scale table (default 10000,100000,1000000)")
    parser.add_argument("--train-memory-messages", type=int, default=75_000, metavar="N",
                        help="synthetic messages of the train-memory measure (default 75000; the target is set "
                             "at 1000000)")
    parser.add_argument("--synthetic", metavar="DIR",
                        help="reuse DIR/synthetic-N/{spam,ham}.mbox written by bench/synthetic.py (seed 1)")
    parser.add_argument("--scale-peers-up-to", type=int, default=0, metavar="N",
                        help="in the scale table, measure bogofilter only up to N messages (default: all)")
    parser.add_argument("--checkout", default=str(ROOT), help="the spamnb checkout to measure (default: this one)")
    parser.add_argument("--timeout", type=float, default=TIMEOUT,
                        help=f"seconds any one command may take (default {TIMEOUT:,})")
    parser.add_argument("--memory-cap", type=float, default=MEMORY_CAP / 1e9,
                        help=f"GB any one measured process tree may use before it is stopped "
                             f"(default {MEMORY_CAP / 1e9:g})")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory and say where")
    parser.add_argument("--write", action="store_true", help="write the report into BENCHMARKS.md")
    arguments = parser.parse_args(argv)
    for name in arguments.only or []:
        if name not in MEASURES:
            parser.error(f"unknown measure {name!r}: choose from {', '.join(MEASURES)}")
    if arguments.repeat is None:
        arguments.repeat = 3 if arguments.quick else 21
    return arguments


def main(argv=None) -> None:
    global TIMEOUT, MEMORY_CAP
    arguments = parse_arguments(argv)
    TIMEOUT, MEMORY_CAP = arguments.timeout, arguments.memory_cap * 1e9
    started = time.perf_counter()
    command = shlex.join([".venv/bin/python", "bench/perf.py"] + (sys.argv[1:] if argv is None else argv))
    temporary = Path(tempfile.mkdtemp(prefix="spamnb-perf-"))
    try:
        bench = Bench(arguments, temporary)
        results = []
        for name in MEASURES:
            if not arguments.only or name in arguments.only:
                results += run_measure(bench, name)
        if arguments.only == ["scale"]:
            text = scale_report(bench, command, time.perf_counter() - started)
        else:
            text = report(bench, results, command, time.perf_counter() - started)
    finally:
        if arguments.keep:
            print(f"kept {temporary}", file=sys.stderr)
        else:
            shutil.rmtree(temporary, ignore_errors=True)
    # The scale table alone goes in a section of its own (one per set of sizes), so the rows of
    # the full run stay as they were measured.
    section = "perf" if arguments.only != ["scale"] else \
        "perf-scale-" + "-".join(str(n) for n in scale_sizes(bench))
    publish(section, text, arguments.write)


def scale_report(bench: Bench, command: str, seconds: float) -> str:
    versions = "; ".join(f"{tool} {version}" if tool != "sklearn" else version
                         for tool, version in bench.versions.items())
    return "\n".join([*bench.tables, "",
                      f"Machine: {compare.machine()}; load average at the start {bench.load}; {versions}. "
                      f"Run {datetime.date.today().isoformat()}, {seconds / 60:.1f} minutes in all.", "",
                      *reproduce(command)])


if __name__ == "__main__":
    main()
