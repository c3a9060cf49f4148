"""The README's procmail recipe, run by the real procmail (skipped if not installed)."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, SAMPLE

PROCMAIL = shutil.which("procmail")


def readme_recipe(marker: str = "procmail-recipe") -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(rf"<!-- {marker} -->\s*```procmail\n(.*?)```", text, re.S)
    assert match, f"README lost its procmail recipe ({marker})"
    return match.group(1)


# The sample model (120 messages) is cautious: its fitted spam cutoff lies above
# every sample spam's P(spam) (0.85-0.95), so the recipes' spam folders would stay
# empty.  The settings a user may give through the environment set one it reaches.
SAMPLE_SETTINGS = "SPAMNB_SPAM_CUTOFF=0.9\n"


@pytest.mark.skipif(PROCMAIL is None, reason="procmail not installed (apt-get install procmail)")
def test_readme_recipe_files_spam_unsure_and_ham(tmp_path, sample_model):
    # procmail takes HOME from the password database, so the recipe's
    # $HOME/Mail is pointed at the test's own directory.
    mail = tmp_path / "Mail"
    mail.mkdir()  # procmail does not create MAILDIR; without it, it delivers relative to the cwd
    bin_dir = Path(sys.executable).parent  # this checkout's spamnb, where the recipe says ~/.local/bin
    recipe = readme_recipe().replace("MAILDIR=$HOME/Mail", f"MAILDIR={mail}").replace("$HOME/.local/bin", str(bin_dir))
    rc = tmp_path / "procmailrc"
    rc.write_text(f"SPAMNB_MODEL={sample_model}\n" + SAMPLE_SETTINGS + recipe)

    def deliver(message: Path, rcfile=rc):
        result = subprocess.run([PROCMAIL, "-m", str(rcfile)], input=message.read_bytes(),
                                capture_output=True, timeout=120, cwd=tmp_path)
        assert result.returncode == 0, result.stderr

    spam = SAMPLE / "maildir" / "spam" / "new" / "1739205492.M2P4102.sample"
    ham = next((SAMPLE / "maildir" / "ham" / "cur").iterdir())
    deliver(spam)
    deliver(ham)
    unsure_rc = tmp_path / "unsure.rc"
    unsure_rc.write_text(rc.read_text().replace("classify --format tsv",
                                                "classify --spam-cutoff 1 --ham-cutoff 0 --format tsv"))
    deliver(spam, unsure_rc)
    broken_rc = tmp_path / "broken.rc"
    broken_rc.write_text(rc.read_text().replace(f"SPAMNB_MODEL={sample_model}",
                                                f"SPAMNB_MODEL={tmp_path / 'missing.model'}"))
    deliver(spam, broken_rc)  # no model: delivered normally, never lost

    def folder(name):
        return sorted(p.read_bytes() for p in (mail / name / "new").glob("*")) if (mail / name).exists() else []

    assert len(folder("spam")) == 1 and b"Subject:" in folder("spam")[0]
    assert len(folder("unsure")) == 1
    assert len(folder("inbox")) == 2  # the ham, and the spam that met a missing model
    delivered_bodies = b"".join(folder("inbox"))
    assert ham.read_bytes().split(b"\n\n", 1)[1] in delivered_bodies


@pytest.mark.skipif(PROCMAIL is None, reason="procmail not installed (apt-get install procmail)")
def test_readme_recipe_works_in_an_mtas_empty_environment(tmp_path, sample_model):
    # An MTA starts procmail with no environment at all (env -i): PATH is then
    # procmail's own default, which lacks where pip puts spamnb, and only the
    # recipe's own PATH line finds it.  The line names $HOME/.local/bin; this
    # checkout's spamnb is in the venv's bin, so that folder is put in its place.
    mail = tmp_path / "Mail"
    mail.mkdir()
    bin_dir = Path(sys.executable).parent
    recipe = readme_recipe()
    assert "\nPATH=$HOME/.local/bin:" in "\n" + recipe, "the README recipe lost its PATH line"
    recipe = recipe.replace("MAILDIR=$HOME/Mail", f"MAILDIR={mail}").replace("$HOME/.local/bin", str(bin_dir))
    rc = tmp_path / "procmailrc"
    rc.write_text(f"SPAMNB_MODEL={sample_model}\n" + SAMPLE_SETTINGS + recipe)
    without_path = tmp_path / "no-path.rc"
    without_path.write_text("\n".join(line for line in rc.read_text().splitlines() if not line.startswith("PATH=")))
    spam = SAMPLE / "maildir" / "spam" / "new" / "1739205492.M2P4102.sample"

    def deliver(rcfile):
        result = subprocess.run(["env", "-i", PROCMAIL, "-m", str(rcfile)], input=spam.read_bytes(),
                                capture_output=True, timeout=120, cwd=tmp_path)
        assert result.returncode == 0, result.stderr

    def count(name):
        return len(list((mail / name / "new").glob("*"))) if (mail / name).exists() else 0

    deliver(rc)
    assert (count("spam"), count("inbox")) == (1, 0)
    # The same recipe without its PATH line: spamnb is not found, the spam is
    # delivered unjudged.  So the environment really was empty, and the line matters.
    deliver(without_path)
    assert (count("spam"), count("inbox")) == (1, 1)


@pytest.mark.skipif(PROCMAIL is None, reason="procmail not installed (apt-get install procmail)")
def test_readme_tagging_recipe_tags_files_spam_and_passes_mail_through_when_spamnb_fails(tmp_path, sample_model):
    mail = tmp_path / "Mail"
    mail.mkdir()
    bin_dir = Path(sys.executable).parent
    head = (f"SHELL=/bin/sh\nPATH={bin_dir}:/usr/bin:/bin\nMAILDIR={mail}\nDEFAULT=$MAILDIR/inbox/\n"
            f"SPAMNB_MODEL={sample_model}\n" + SAMPLE_SETTINGS)
    rc = tmp_path / "tag.rc"
    rc.write_text(head + readme_recipe("procmail-tag-recipe"))
    broken = tmp_path / "broken.rc"
    broken.write_text(rc.read_text().replace(f"SPAMNB_MODEL={sample_model}", f"SPAMNB_MODEL={tmp_path / 'none'}"))
    spam = SAMPLE / "maildir" / "spam" / "new" / "1739205492.M2P4102.sample"
    ham = next((SAMPLE / "maildir" / "ham" / "cur").iterdir())

    def deliver(message: Path, rcfile: Path):
        result = subprocess.run(["env", "-i", PROCMAIL, "-m", str(rcfile)], input=message.read_bytes(),
                                capture_output=True, timeout=120, cwd=tmp_path)
        assert result.returncode == 0, result.stderr

    def folder(name):
        return sorted(p.read_bytes() for p in (mail / name / "new").glob("*")) if (mail / name).exists() else []

    deliver(spam, rc)
    deliver(ham, rc)
    assert len(folder("spam")) == 1 and b"\nX-Spamnb-Status: Yes, score=" in folder("spam")[0]
    assert len(folder("inbox")) == 1 and b"\nX-Spamnb-Status: No, score=" in folder("inbox")[0]
    deliver(spam, broken)  # no model: filter exits 75 and the message goes on as it came
    untagged = [message for message in folder("inbox") if b"X-Spamnb-Status" not in message]
    assert untagged == [spam.read_bytes()]
