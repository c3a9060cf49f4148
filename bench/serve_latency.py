"""Latency of `spamnb serve` against a cold bogofilter, per message.

    python bench/serve_latency.py [--corpus DIR] [--messages 1000] [--runs 30] [--workdir DIR]

Trains a spamnb model (`spamnb train`) and a bogofilter database (`-s -b`,
`-n -b`) on the whole corpus, starts `spamnb serve`, then reports:

  warm      the first --messages messages of the corpus index sent one at a
            time over one connection by this process (spamnb.app.server.Client):
            median and p95 of each request's round trip
  fresh     `spamnb classify --server SOCK MSG` as a new process, one per
            message for the first --runs messages: median wall time
  client    a new process that imports only spamnb.app.server, bypassing the
            package's __init__ (which imports numpy and scipy for Model), and
            sends MSG: what a start-up path using just the client would cost
  local     `spamnb classify --model MODEL MSG`, the same way (for comparison)
  bogofilter `bogofilter -d DB < MSG`, the same way (its usual cold use)

The machine may be shared: numbers are wall-clock times, not CPU times.
The new processes get a bytecode cache under --workdir (an installed spamnb
has its .pyc files; a checkout run with PYTHONDONTWRITEBYTECODE would
otherwise compile every module at every start), and each kind is run once
untimed first.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from spamnb.app.server import Client  # noqa: E402


def corpus_messages(corpus: Path) -> list[tuple[str, Path]]:
    """(label, path) in the order of the corpus index."""
    rows = []
    for line in (corpus / "index").read_text().splitlines():
        label, _, name = line.partition("\t")
        rows.append((label, corpus / name))
    return rows


# Loads spamnb/app/server.py and spamnb/errors.py under an empty package object, so
# the numbers show the client's own cost, not the package __init__'s imports.
CLIENT_ONLY = """
import sys, types
package = types.ModuleType("spamnb"); package.__path__ = [sys.argv[1]]; sys.modules["spamnb"] = package
from spamnb.app.server import Client
with Client(sys.argv[2]) as client, open(sys.argv[3], "rb") as message:
    print(client.score(message.read())["label"])
"""


ENV = dict(os.environ)


def wall(command: list[str], stdin_path: Path | None = None) -> float:
    with open(stdin_path or os.devnull, "rb") as stdin:
        started = time.perf_counter()
        subprocess.run(command, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env=ENV, check=False)
        return time.perf_counter() - started


def timed(make_command, paths: list[Path], stdin: bool = False) -> list[float]:
    """Wall time of one new process per path, after one untimed run."""
    def run(path):
        return wall(make_command(None if stdin else path), path if stdin else None)
    run(paths[0])
    return [run(path) for path in paths]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpora" / "spamassassin")
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="spamnb-serve-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    ENV.pop("PYTHONDONTWRITEBYTECODE", None)
    ENV["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    spamnb = [sys.executable, "-m", "spamnb"]
    model, database, sock = work / "model.spamnb", work / "bogofilter", work / "run" / "serve.sock"
    rows = corpus_messages(args.corpus)

    if not model.exists():
        subprocess.run([*spamnb, "train", str(args.corpus), "--model", str(model), "-q"], check=True)
    if not database.exists():
        database.mkdir()
        for label, flag in (("spam", "-s"), ("ham", "-n")):
            names = "".join(f"{path}\n" for row_label, path in rows if row_label == label)
            subprocess.run(["bogofilter", "-d", str(database), flag, "-b"], input=names.encode(), check=True)

    server = subprocess.Popen([*spamnb, "serve", "--model", str(model), "--socket", str(sock)],
                              stderr=subprocess.PIPE, text=True)
    try:
        server.stderr.readline()  # "serving ...": listening and warmed up
        messages = [path.read_bytes() for _, path in rows[:args.messages]]
        times = []
        with Client(str(sock)) as client:
            for raw in messages:
                started = time.perf_counter()
                client.score(raw)
                times.append(time.perf_counter() - started)
        ms = [1000 * t for t in times]
        print(f"warm       {len(ms)} messages over one connection: median {statistics.median(ms):.2f} ms, "
              f"p95 {percentile(ms, 0.95):.2f} ms, mean {statistics.fmean(ms):.2f} ms, "
              f"max {max(ms):.1f} ms")
        sample = [path for _, path in rows[:args.runs]]
        fresh = timed(lambda path: [*spamnb, "classify", "--server", str(sock), str(path)], sample)
        client = timed(lambda path: [sys.executable, "-c", CLIENT_ONLY, str(ROOT / "spamnb"), str(sock), str(path)],
                       sample)
        local = timed(lambda path: [*spamnb, "classify", "--model", str(model), str(path)], sample)
        bogo = timed(lambda path: ["bogofilter", "-d", str(database)], sample, stdin=True)
        for name, values in (("fresh", fresh), ("client", client), ("local", local),
                             ("bogofilter", bogo)):
            print(f"{name:<11}{len(values)} processes: median {1000 * statistics.median(values):.1f} ms, "
                  f"min {1000 * min(values):.1f} ms")
    finally:
        server.terminate()
        server.wait(timeout=10)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; work files in {work}")


if __name__ == "__main__":
    main()
