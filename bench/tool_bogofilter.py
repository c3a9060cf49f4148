"""bogofilter (the Debian package; installed with apt-get when missing) with
a fresh database directory and no config file (-C: the built-in cutoffs,
spamicity >= 0.99 spam, <= 0.45 ham).

split:  bulk registration (`-s -b`, `-n -b`) of the training messages, then
        verdicts from `-T -b` and scores from the 16-digit spamicity of
        `-TT -b` (-T's 6 decimals tie many spam at 1).
online: per message `-T -I FILE` (verdict) and `-TT -I FILE` (score), then
        `-s -I FILE` or `-n -I FILE`.  With no database yet bogofilter
        exits 3 and prints nothing: the message is unscored.
"""

from __future__ import annotations

import time
from pathlib import Path

from toolkit import OnlineJob, Outcome, SplitJob, ensure_command, names, run, timed

VERDICTS = {"S": "spam", "H": "ham", "U": "unsure"}


def ensure_bogofilter() -> str:
    """bogofilter's version, installing the Debian package first if needed."""
    ensure_command("bogofilter", "bogofilter")
    return run(["bogofilter", "-V"]).stdout.splitlines()[0].split()[-1]


def version() -> str:
    return ensure_bogofilter()


def base(job) -> list[str]:
    database = job.root / "bogofilter-db"
    database.mkdir(exist_ok=True)
    return ["bogofilter", "-C", "-d", str(database)]


def split(job: SplitJob) -> Outcome:
    command = base(job)
    train_spam = [item.path for item in job.train if item.label]
    train_ham = [item.path for item in job.train if not item.label]

    def train():
        run(command + ["-s", "-b"], stdin=names(train_spam))
        run(command + ["-n", "-b"], stdin=names(train_ham))

    _, train_seconds = timed(train)
    test = [item.path for item in job.test]
    # Bulk classification exits with the status of the last message (0, 1 or
    # 2); 3 means an error, after which the lines printed so far still count.
    verdict_run, classify_seconds = timed(lambda: run(command + ["-T", "-b"], names(test), ok=(0, 1, 2, 3)))
    score_run = run(command + ["-TT", "-b"], names(test), ok=(0, 1, 2, 3))
    terse = parse_terse(verdict_run.stdout)
    precise = parse_scores(score_run.stdout)
    if not precise:
        raise RuntimeError(f"bogofilter printed no scores: {score_run.stderr.strip()[-300:]}")
    scores = [precise.get(path.name) for path in test]
    verdicts = [terse.get(path.name, (None, "unsure"))[1] for path in test]
    notes = [line for line in (verdict_run.stderr + score_run.stderr).splitlines() if line.strip()][:3]
    six_digits = [terse.get(path.name, (None, ""))[0] for path in test]
    return Outcome(scores, verdicts, {"train": train_seconds, "classify": classify_seconds}, notes,
                   {"the 6-decimal -T spamicity": (six_digits, 0.5)}, neutral=0.5)


def online(job: OnlineJob) -> Outcome:
    command = base(job)
    scores, verdicts = [], []
    started = time.perf_counter()
    for number, item in enumerate(job.stream, 1):
        terse = run(command + ["-T", "-I", str(item.path)], ok=(0, 1, 2, 3)).stdout.split()
        precise = run(command + ["-TT", "-I", str(item.path)], ok=(0, 1, 2, 3)).stdout.split()
        if len(terse) == 2 and len(precise) == 1:
            scores.append(float(precise[0]))
            verdicts.append(VERDICTS[terse[0]])
        else:  # no database yet (exit 3), or an error
            scores.append(None)
            verdicts.append("unsure")
        run(command + ["-s" if item.label else "-n", "-I", str(item.path)])
        job.progress("bogofilter", number, started)
    return Outcome(scores, verdicts, {"total": time.perf_counter() - started}, neutral=0.5)


def parse_terse(output: str) -> dict[str, tuple[float, str]]:
    """{file name: (spamicity, verdict)} from `-T -b` lines such as "PATH S 0.999999"."""
    out = {}
    for line in output.splitlines():
        path, letter, score = line.rsplit(" ", 2)
        out[Path(path).name] = (float(score), VERDICTS[letter])
    return out


def parse_scores(output: str) -> dict[str, float]:
    """{file name: spamicity} from `-TT -b` lines such as "PATH 0.9999987063618617"."""
    out = {}
    for line in output.splitlines():
        path, score = line.rsplit(" ", 1)
        out[Path(path).name] = float(score)
    return out
