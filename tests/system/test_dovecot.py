"""Learn on move: the Dovecot IMAPSieve recipe in spamnb/data/dovecot,
run by a real Dovecot imap process: copying a message into Junk learns it as
spam, copying it out of Junk relabels it ham.

Needs Dovecot with Pigeonhole (Debian: dovecot-imapd dovecot-sieve) and root,
to run the mail process as an unprivileged user as Dovecot insists.
"""

import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, SAMPLE, run_spamnb

IMAP = Path("/usr/lib/dovecot/imap")
RECIPE = ROOT / "spamnb" / "data" / "dovecot"
MESSAGE = SAMPLE / "maildir" / "ham" / "cur" / "1739174744.M1P4101.sample:2,S"


def mail_user():
    try:
        return pwd.getpwnam("nobody")
    except KeyError:
        return None


def skip_reason() -> str | None:
    if not IMAP.exists() or not list(Path("/usr/lib/dovecot/modules").glob("*imap_sieve*")):
        return "Dovecot with Pigeonhole is not installed (apt-get install dovecot-imapd dovecot-sieve)"
    if os.geteuid() != 0 or mail_user() is None:
        return "needs root, to run Dovecot's mail process as the unprivileged user nobody"
    return None


def python_for(user) -> list[str] | None:
    """A Python the mail user can run that imports this checkout's spamnb."""
    for candidate in (sys.executable, "/usr/bin/python3"):
        probe = subprocess.run(["su", user.pw_name, "-s", "/bin/sh", "-c",
                                f"PYTHONPATH={ROOT} {candidate} -c 'import spamnb.app.fastpath'"],
                               capture_output=True)
        if probe.returncode == 0:
            return [candidate]
    return None


class Imap:
    """A preauthenticated Dovecot imap process on pipes, one command at a time."""

    def __init__(self, config: Path, user) -> None:
        self.process = subprocess.Popen([str(IMAP), "-c", str(config)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        env={"USER": user.pw_name, "HOME": str(config.parent), "PATH": "/usr/bin:/bin"})
        self.count = 0
        self.read_until(b"* PREAUTH")

    def read_until(self, marker: bytes) -> bytes:
        seen = b""
        while marker not in seen:
            line = self.process.stdout.readline()
            assert line, f"imap ended: {seen.decode(errors='replace')}"
            seen += line
        return seen

    def command(self, text: str, literal: bytes | None = None) -> bytes:
        self.count += 1
        tag = f"a{self.count}".encode()
        if literal is None:
            self.process.stdin.write(tag + b" " + text.encode() + b"\r\n")
        else:
            self.process.stdin.write(tag + b" " + text.encode() + f" {{{len(literal)}+}}\r\n".encode()
                                     + literal + b"\r\n")
        self.process.stdin.flush()
        reply = self.read_until(tag + b" ")
        assert tag + b" OK" in reply, reply.decode(errors="replace")
        return reply

    def close(self) -> None:
        self.command("LOGOUT")
        self.process.wait(timeout=30)


def learned_as(model: Path) -> dict:
    from spamnb.mail.digest import message_digest
    from spamnb.model.model import Model

    return Model.load(model).counts.learned.get(message_digest(MESSAGE.read_bytes()))


def test_moving_into_and_out_of_junk_learns_spam_then_ham(tmp_path):
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    user = mail_user()
    python = python_for(user)
    if python is None:
        pytest.skip("no Python the user nobody can run imports this checkout")
    home = Path("/tmp") / f"spamnb-dovecot-{os.getpid()}"  # pytest's tmp is closed to other users
    shutil.rmtree(home, ignore_errors=True)
    (home / "bin").mkdir(parents=True)
    (home / "sieve").mkdir()
    try:
        model = home / "model.spamnb"
        assert run_spamnb("train", SAMPLE / "mail", "--model", model, "-q").returncode == 0
        # The recipe's files, with this test's paths in place of /usr/local/lib/dovecot.
        conf = (RECIPE / "90-spamnb-imapsieve.conf").read_text()
        conf = conf.replace("/usr/local/lib/dovecot/sieve-pipe", str(home / "bin")) \
                   .replace("/usr/local/lib/dovecot/sieve", str(home / "sieve"))
        (home / "dovecot.conf").write_text(
            f"mail_uid = {user.pw_uid}\nmail_gid = {user.pw_gid}\nbase_dir = {home}/run\n"
            f"state_dir = {home}/run/state\nmail_location = maildir:{home}/mail\nprotocols = imap\n"
            "ssl = no\nnamespace inbox {\n  inbox = yes\n  separator = /\n}\n" + conf)
        for name in ("spamnb-learn-spam.sieve", "spamnb-learn-ham.sieve"):
            shutil.copy(RECIPE / name, home / "sieve" / name)
        # The pipe program as shipped, with `spamnb` on its PATH and the model chosen.
        (home / "bin" / "spamnb").write_text(
            f"#!/bin/sh\nPYTHONPATH={ROOT} SPAMNB_MODEL={model} exec {python[0]} -m spamnb \"$@\"\n")
        shutil.copy(RECIPE / "spamnb-learn", home / "bin" / "spamnb-learn")
        (home / "bin" / "spamnb-learn").write_text(
            (RECIPE / "spamnb-learn").read_text().replace("#!/bin/sh\n", f"#!/bin/sh\nPATH={home}/bin:$PATH\n", 1))
        for path in (home / "bin" / "spamnb", home / "bin" / "spamnb-learn"):
            path.chmod(0o755)
        for directory, _, files in os.walk(home):
            os.chown(directory, user.pw_uid, user.pw_gid)
            for name in files:
                os.chown(os.path.join(directory, name), user.pw_uid, user.pw_gid)
        os.chmod(home, 0o755)

        assert learned_as(model) is None
        imap = Imap(home / "dovecot.conf", user)
        imap.command("CREATE Junk")
        imap.command("APPEND INBOX", MESSAGE.read_bytes())
        imap.command("SELECT INBOX")
        imap.command("COPY 1 Junk")  # the user says: spam
        assert learned_as(model) == 1
        imap.command("SELECT Junk")
        imap.command("COPY 1 INBOX")  # and takes it back: ham
        assert learned_as(model) == 0
        imap.close()
    finally:
        shutil.rmtree(home, ignore_errors=True)


SIEVE_TEST = shutil.which("sieve-test")
SPAM_MESSAGE = SAMPLE / "maildir" / "spam" / "new" / "1739205492.M2P4102.sample"


def test_a_sieve_rule_written_for_spamassassin_files_what_filter_tags(sample_model):
    """filter --header-style spamassassin, read by Pigeonhole's own sieve-test."""
    if SIEVE_TEST is None:
        pytest.skip("sieve-test is not installed (apt-get install dovecot-sieve)")
    if os.geteuid() != 0 or mail_user() is None:
        pytest.skip("needs root, to run sieve-test as an unprivileged user as Dovecot insists")
    home = Path("/tmp") / f"spamnb-sieve-{os.getpid()}"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir()
    try:
        script = home / "junk.sieve"
        script.write_text('require "fileinto";\nif header :is "X-Spam-Flag" "YES" { fileinto "Junk"; }\n')
        folders = {}
        for name, message in (("spam", SPAM_MESSAGE), ("ham", MESSAGE)):
            # A forged verdict in the incoming message must not survive.
            forged = b"X-Spam-Flag: " + (b"NO" if name == "spam" else b"YES") + b"\n" + message.read_bytes()
            result = run_spamnb("filter", "--model", sample_model, "--header-style", "spamassassin", input=forged)
            assert result.returncode == 0, result.stderr
            assert result.stdout.count(b"X-Spam-Flag:") == 1
            (home / f"{name}.eml").write_bytes(result.stdout)
        os.chown(home, mail_user().pw_uid, mail_user().pw_gid)
        for path in home.iterdir():
            path.chmod(0o644)
        for name in ("spam", "ham"):
            run = subprocess.run(["su", "nobody", "-s", "/bin/sh", "-c",
                                  f"{SIEVE_TEST} {script} {home / (name + '.eml')}"],
                                 capture_output=True, text=True, timeout=60)
            actions = run.stdout.split("Performed actions:")[-1].split("Implicit keep:")[0]
            folders[name] = "Junk" if "folder: Junk" in actions else "INBOX"
        assert folders == {"spam": "Junk", "ham": "INBOX"}
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_spamassassin_style_fields_are_neither_tokens_nor_part_of_the_digest(sample_model):
    from spamnb.mail.digest import message_digest
    from spamnb.model.scorer import Scorer

    raw = SPAM_MESSAGE.read_bytes()
    tagged = run_spamnb("filter", "--model", sample_model, "--header-style", "spamassassin", input=raw).stdout
    assert b"X-Spam-Status: Yes, score=" in tagged
    scorer = Scorer.open(sample_model)
    assert scorer.tokens(tagged) == scorer.tokens(raw)  # our own verdict is never evidence
    assert message_digest(tagged) == message_digest(raw)  # learning it later is the same message
