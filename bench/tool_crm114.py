"""CRM114 as its documentation sets it up: the "standard script" mailreaver.crm,
which trains through mailtrainer.crm, with the Debian package's
mailfilter.cf (installed with apt-get when missing).

That configuration is the OSB classifier `<osb unique microgroom>` over
`[[:graph:]]+` tokens of the first 16,000 bytes, base64 parts decoded
(`openssl base64 -d`), spam.css and nonspam.css; pR = log10 P(good) /
P(spam) (positive: good); verdicts pR <= -5 spam, >= +5 good, between
unsure; and DSTTTR training (double-sided thick-threshold training with
refutation, thickness 5): a message given with its label is learned only
if it is misclassified or its |pR| is under 5, and re-checked.

Changed from the Debian mailfilter.cf, neither touching classification:
log_to_allmail.txt off (no log copy of every message), and
trainer_randomizer_command a sort by file name instead of shuffle.crm, so
that `mailtrainer.crm --random` trains in the protocol's order (the cf's
own comment offers `sort` "to achieve chronological training").
priolist.mfp and rewrites.mfp are empty (the examples would whitelist
mit.edu and rewrite placeholder addresses).

split:  `mailtrainer.crm --spam=DIR/ --good=DIR/ --random`, one pass, then
        `mailreaver.crm --stats_only < FILE` per test message.
online: per message `mailreaver.crm --stats_only < FILE`, then
        `mailreaver.crm --spam|--good < FILE` (which caches the text and
        runs mailtrainer.crm on it).  Before the first training there are
        no .css files and classify fails: the message is unscored.

The score is -pR (higher: spammier); mailreaver prints it to 2 decimals.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

from toolkit import OnlineJob, Outcome, Skip, SplitJob, ensure_command, run, timed

SCRIPTS = Path("/usr/share/crm114")
CHANGES = {  # Debian's mailfilter.cf line: ours
    ":log_to_allmail.txt: /yes/": ":log_to_allmail.txt: /no/",
    r":trainer_randomizer_command: /.\/shuffle.crm/": ":trainer_randomizer_command: /./inorder.sh/",
}
# mailtrainer's --random list has lines "S<spam dir><file>" and "G<good dir><file>";
# the files are named by their position in the training order.
IN_ORDER = """#!/bin/sh
# mailtrainer.crm's "randomizer": the training order, by file name.
awk -F/ '{print $NF "\\t" $0}' | sort | cut -f2-
"""


def version() -> str:
    ensure_command("crm", "crm114")
    missing = [name for name in ("mailreaver.crm", "mailtrainer.crm", "maillib.crm", "mailfilter.cf")
               if not (SCRIPTS / name).exists()]
    if missing:
        raise Skip(f"crm is installed but {', '.join(missing)} not in {SCRIPTS}")
    configuration()
    done = run(["crm", "-v"], ok=(0, 1, 2))
    found = re.search(r"version (\S+)", done.stdout + done.stderr)
    return found.group(1) if found else "unknown version"


def openssl_note() -> list[str]:
    """mailreaver decodes base64 with openssl; without it those parts stay encoded."""
    try:
        ensure_command("openssl", "openssl")
        return []
    except Skip as why:
        return [f"base64 parts not decoded: {why}"]


def configuration() -> str:
    """Debian's mailfilter.cf with CHANGES made."""
    lines = (SCRIPTS / "mailfilter.cf").read_text().split("\n")
    for debian, ours in CHANGES.items():
        found = [number for number, line in enumerate(lines) if " ".join(line.split()) == debian]
        if len(found) != 1:
            raise Skip(f"{SCRIPTS / 'mailfilter.cf'} has no single line {debian!r} to change")
        lines[found[0]] = ours
    return "\n".join(lines)


def set_up(root: Path) -> tuple[Path, float, float]:
    """A CRM114 home directory: (its path, spam threshold, good threshold)."""
    home = root / "crm114"
    home.mkdir()
    config = configuration()
    (home / "mailfilter.cf").write_text(config)
    for empty in ("priolist.mfp", "rewrites.mfp"):
        (home / empty).write_text("")
    (home / "inorder.sh").write_text(IN_ORDER)
    (home / "inorder.sh").chmod(0o755)
    shutil.copy(SCRIPTS / "mailtrainer.crm", home / "mailtrainer.crm")  # mailreaver runs ./mailtrainer.crm
    (home / "mailtrainer.crm").chmod(0o755)

    def setting(name):
        return float(re.search(rf"^:{name}:\s*/([-0-9.]+)/", config, re.M).group(1))

    return home, setting("spam_threshold"), setting("good_threshold")


def classify(home: Path, path: Path) -> float | None:
    """mailreaver's pR for one message, or None if it gave none."""
    with open(path, "rb") as message:
        done = subprocess.run(["crm", str(SCRIPTS / "mailreaver.crm"), "--stats_only"], stdin=message,
                              capture_output=True, cwd=home)
    try:
        return float(done.stdout.split()[0])
    except (IndexError, ValueError):
        return None


def verdict(pr: float | None, spam_threshold: float, good_threshold: float) -> str:
    if pr is None:
        return "unsure"
    return "spam" if pr <= spam_threshold else "ham" if pr >= good_threshold else "unsure"


def split(job: SplitJob) -> Outcome:
    home, spam_threshold, good_threshold = set_up(job.root)
    notes = openssl_note()
    train = ["crm", str(home / "mailtrainer.crm"), f"--spam={job.spam_dir}/", f"--good={job.ham_dir}/",
             "--random"]
    trained, train_seconds = timed(lambda: run(train, cwd=home))
    learned = len(re.findall(r"\) train", trained.stdout))
    notes.append(f"mailtrainer learned {learned:,} of the {len(job.train):,} training messages "
                 "(DSTTTR: only those misclassified or within the thick threshold)")

    def classify_all():
        return [classify(home, item.path) for item in job.test]

    prs, classify_seconds = timed(classify_all)
    return finish(prs, spam_threshold, good_threshold, {"train": train_seconds, "classify": classify_seconds},
                  notes)


def online(job: OnlineJob) -> Outcome:
    home, spam_threshold, good_threshold = set_up(job.root)
    notes = openssl_note()
    prs = []
    learned, failed = 0, []
    started = time.perf_counter()
    for number, item in enumerate(job.stream, 1):
        prs.append(classify(home, item.path))
        with open(item.path, "rb") as message:
            done = subprocess.run(["crm", str(SCRIPTS / "mailreaver.crm"), "--spam" if item.label else "--good"],
                                  stdin=message, capture_output=True, cwd=home)
        if done.returncode != 0 or b"LEARNED AND CACHED" not in done.stdout:
            failed.append(f"message {number}: exit {done.returncode}, "
                          f"{done.stderr.decode(errors='replace').strip()[-160:]}")
        learned += b") train" in done.stdout
        job.progress("crm114", number, started)
    if failed:
        notes.append(f"mailreaver could not learn {len(failed)} messages; the first: {failed[0]}")
    notes.append(f"mailtrainer learned {learned:,} of the {len(job.stream):,} messages "
                 "(DSTTTR: only those misclassified or within the thick threshold)")
    return finish(prs, spam_threshold, good_threshold, {"total": time.perf_counter() - started}, notes)


def finish(prs, spam_threshold, good_threshold, seconds, notes) -> Outcome:
    scores = [None if pr is None else -pr for pr in prs]
    verdicts = [verdict(pr, spam_threshold, good_threshold) for pr in prs]
    return Outcome(scores, verdicts, seconds, notes)
