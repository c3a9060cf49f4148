"""spamnb as a user runs it: only through its command line.

split:  `spamnb train --spam DIR --ham DIR`, then `spamnb classify --format jsonl DIR`.
online: per message `spamnb classify --format jsonl --model M FILE`, then
        `spamnb learn --spam|--ham FILE --model M`, from no model file at all:
        the first learn creates the model.

The score is `log_odds`, the verdict `label`.  `extra` (compare.py's
--spamnb-args) goes to `train` and to the learn that creates the model;
content-header rows add `--headers content` before it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from toolkit import OnlineJob, Outcome, SplitJob, run, timed

ROOT = Path(__file__).resolve().parents[1]


def command() -> list[str]:
    script = Path(sys.executable).parent / "spamnb"
    return [str(script)] if script.exists() else [sys.executable, "-m", "spamnb"]


def version() -> str:
    """The version, and the commit, since spamnb/ changes faster than its version."""
    version = run(command() + ["--version"]).stdout.strip().split()[-1]
    try:
        commit = run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"]).stdout.strip()
        changed = run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "spamnb"]).stdout.strip()
    except (OSError, RuntimeError):
        return version
    return f"{version} (commit {commit}{', with uncommitted changes in spamnb/' if changed else ''})"


def code_state() -> str:
    """spamnb/'s committed tree and its uncommitted changes: what every call runs."""
    try:
        tree = run(["git", "-C", str(ROOT), "rev-parse", "HEAD:spamnb"]).stdout.strip()
        changed = run(["git", "-C", str(ROOT), "diff", "HEAD", "--", "spamnb"]).stdout
    except (OSError, RuntimeError) as error:
        return f"unknown ({error})"
    return f"tree {tree[:10]}" + (f", {len(changed.splitlines())} lines of uncommitted diff" if changed else "")


def model_options(job, extra: list[str]) -> list[str]:
    return (["--headers", "content"] if job.content_headers else []) + extra


def settings(model: Path) -> str:
    summary = json.loads(run(command() + ["inspect", "--model", str(model), "--top", "0",
                                          "--format", "json"]).stdout)["summary"]
    cutoffs = summary.get("cutoffs", {})
    headers = summary.get("headers", "?")
    headers = ",".join(headers) if isinstance(headers, list) else headers
    return (f"model settings: {summary.get('event_model')} event model, alpha {summary.get('alpha')}, "
            f"min strength {summary.get('min_strength', '?')}, headers {headers}; "
            f"cutoffs P(spam) ≥ {cutoffs.get('spam')} spam, ≤ {cutoffs.get('ham')} ham")


def settings_note(model: Path) -> str:
    try:
        return settings(model)
    except Exception as error:  # only a note: the scores stand without it
        return f"could not read the model settings: {str(error)[:200]}"


def split(job: SplitJob, extra: list[str]) -> Outcome:
    model = job.root / "model.spamnb"
    train = command() + ["train", "--spam", str(job.spam_dir), "--ham", str(job.ham_dir),
                         "--model", str(model), "-q"] + model_options(job, extra)
    trained, train_seconds = timed(run, train)
    # Exit status 4 means some message could not be read; the others are scored.
    classify = command() + ["classify", "--model", str(model), "--format", "jsonl", str(job.test_dir)]
    done, classify_seconds = timed(lambda: run(classify, ok=(0, 4)))
    by_name = {}
    for line in done.stdout.splitlines():
        record = json.loads(line)
        by_name[Path(record["path"]).name] = (record["log_odds"], record["label"])
    scores = [by_name.get(item.path.name, (None, "unsure"))[0] for item in job.test]
    verdicts = [by_name.get(item.path.name, (None, "unsure"))[1] for item in job.test]
    notes = [line for line in (trained.stderr + done.stderr).splitlines() if line.strip()][:3]
    notes.append(settings_note(model))
    return Outcome(scores, verdicts, {"train": train_seconds, "classify": classify_seconds}, notes)


def online(job: OnlineJob, extra: list[str]) -> Outcome:
    model = job.root / "model.spamnb"
    scores, verdicts = [], []
    problems: dict[str, int] = {}
    classify_seconds = learn_seconds = 0.0
    started = time.perf_counter()
    for number, item in enumerate(job.stream, 1):
        # Before the first learn there is no model file: classify says so
        # (exit 3) and the message counts as unscored, as for every tool.
        began = time.perf_counter()
        done = subprocess.run(command() + ["classify", "--format", "jsonl", "--model", str(model), str(item.path)],
                              capture_output=True, text=True)
        classify_seconds += time.perf_counter() - began
        record = json.loads(done.stdout.splitlines()[-1]) if done.stdout.strip() else None
        scores.append(None if record is None else record["log_odds"])
        verdicts.append("unsure" if record is None else record["label"])
        if record is None and number > 1:  # the first has no model yet, as it should
            reason = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"
            reason = f"unscored, classify said: {reason.replace(str(model), 'MODEL')[:160]}"
            problems[reason] = problems.get(reason, 0) + 1
        learn = command() + ["learn", "--spam" if item.label else "--ham", str(item.path), "--model", str(model)]
        if not model.exists():
            learn += model_options(job, extra)
        began = time.perf_counter()
        learned = subprocess.run(learn, capture_output=True, text=True)
        learn_seconds += time.perf_counter() - began
        if learned.returncode != 0:
            raise RuntimeError(f"learn of message {number} exited {learned.returncode}: {learned.stderr.strip()[-300:]}")
        for what in ("already learned", "learned with the other label"):
            if what in learned.stdout:
                problems[f"learn said {what}"] = problems.get(f"learn said {what}", 0) + 1
        job.progress("spamnb", number, started)
    notes = [f"{count:,} message{'' if count == 1 else 's'}: {what}" for what, count in problems.items()]
    notes.append(f"classify {classify_seconds:.0f} s, learn {learn_seconds:.0f} s in all "
                 f"(model file {model.stat().st_size / 1e6:.1f} MB at the end)")
    notes.append(settings_note(model))
    total = classify_seconds + learn_seconds
    return Outcome(scores, verdicts, {"classify": classify_seconds, "learn": learn_seconds, "total": total}, notes)


def online_served(job: OnlineJob, extra: list[str], ahead: bool = False) -> Outcome:
    """The online protocol through the command line with a resident server:
    `spamnb serve` started on a model file that does not exist yet, then per
    message `spamnb classify --server S --format jsonl -` and `spamnb learn
    --server S --spam|--ham -`, the message on standard input (as a mail
    flow pipes it).  The server creates the model at the first learn with
    the default options, so neither `extra` nor content headers can be given.

    `ahead`: each client process is started one step early, while the step
    before it is still running, as a mail system starts the process for a
    delivery while others are under way; it then waits on its standard input.
    The protocol stays sequential in what each step sees: a message reaches
    its `classify` only after the previous message's `learn` has replied (the
    server has its count on file), and its `learn` only after its `classify`
    has printed the score.  What overlaps is Python's start and imports, with
    the other core busy on the step before."""
    if extra or job.content_headers:
        raise ValueError("the served online protocol runs with the default options only "
                         "(the server creates the model at the first learn)")
    model, socket_path, log_path = job.root / "served.spamnb", job.root / "serve.sock", job.root / "serve.log"
    with open(log_path, "wb") as log:
        server = subprocess.Popen(command() + ["serve", "--model", str(model), "--socket", str(socket_path)],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
    waiting: subprocess.Popen | None = None  # a client started ahead of its turn
    try:
        deadline = time.monotonic() + 120
        while "serving " not in log_path.read_text(errors="replace"):
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"spamnb serve did not start: {log_path.read_text(errors='replace')[-300:]}")
            time.sleep(0.05)
        scores, verdicts = [], []
        problems: dict[str, int] = {}
        classify_seconds = learn_seconds = 0.0
        # CPU time, which a busy machine inflates far less than wall time: the
        # clients' as they are reaped, the server's (its workers' included,
        # which it reaps) once it has stopped.
        cpu_before = _children_cpu()
        started = time.perf_counter()
        classify_command = command() + ["classify", "--server", str(socket_path), "--format", "jsonl", "-"]

        def learn_command(item) -> list[str]:
            return command() + ["learn", "--server", str(socket_path), "--spam" if item.label else "--ham", "-"]

        def start(arguments: list[str]) -> subprocess.Popen:
            return subprocess.Popen(arguments, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

        def finish(process: subprocess.Popen, raw: bytes) -> subprocess.CompletedProcess:
            out, err = process.communicate(raw)
            return subprocess.CompletedProcess(process.args, process.returncode, out, err)

        waiting = start(classify_command) if ahead else None
        for number, item in enumerate(job.stream, 1):
            raw = item.path.read_bytes()
            began = time.perf_counter()
            if ahead:
                assert waiting is not None
                classifier, waiting = waiting, start(learn_command(item))
                done = finish(classifier, raw)
            else:
                done = subprocess.run(classify_command, input=raw, capture_output=True)
            classify_seconds += time.perf_counter() - began
            record = json.loads(done.stdout.splitlines()[-1]) if done.stdout.strip() else None
            scores.append(None if record is None else record["log_odds"])
            verdicts.append("unsure" if record is None else record["label"])
            if record is None:
                reason = f"unscored, classify said: {done.stderr.decode(errors='replace').strip()[-160:]}"
                problems[reason] = problems.get(reason, 0) + 1
            began = time.perf_counter()
            if ahead:
                assert waiting is not None
                learner = waiting
                waiting = start(classify_command) if number < len(job.stream) else None
                learned = finish(learner, raw)
            else:
                learned = subprocess.run(learn_command(item), input=raw, capture_output=True)
            learn_seconds += time.perf_counter() - began
            if learned.returncode != 0:
                raise RuntimeError(f"learn of message {number} exited {learned.returncode}: "
                                   f"{learned.stderr.decode(errors='replace').strip()[-300:]}")
            for what in ("already learned", "learned with the other label"):
                if what.encode() in learned.stdout:
                    problems[f"learn said {what}"] = problems.get(f"learn said {what}", 0) + 1
            job.progress("spamnb served", number, started)
        cpu_clients = _children_cpu() - cpu_before
    finally:
        if waiting is not None and waiting.poll() is None:  # its turn never came (a step failed)
            waiting.kill()
            waiting.wait()
        server.terminate()
        server.wait(timeout=30)
    cpu_server = _children_cpu() - cpu_before - cpu_clients
    notes = [f"{count:,} message{'' if count == 1 else 's'}: {what}" for what, count in problems.items()]
    reloads = log_path.read_text(errors="replace").count("reloaded ")
    notes.append(f"classify {classify_seconds:.0f} s, learn {learn_seconds:.0f} s in all; the server loaded the "
                 f"model whole {reloads} times (model file {model.stat().st_size / 1e6:.1f} MB at the end)")
    notes.append(settings_note(model))
    total = classify_seconds + learn_seconds
    return Outcome(scores, verdicts, {"classify": classify_seconds, "learn": learn_seconds, "total": total,
                                      "cpu clients": cpu_clients, "cpu server": cpu_server}, notes)


def _children_cpu() -> float:
    """User + system CPU seconds of the reaped child processes so far."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
