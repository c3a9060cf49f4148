"""README.md is the user's guide, and it says what the code does.

- It is short (at most 450 lines) and opens with the two set-up commands.
- Every default its option tables name is the command line's own default
  (read from click's command objects, as `--help` prints them).
- Every `spamnb …` command in its shell blocks runs here as written: real
  subprocesses, in a temporary home with a model trained on sample_data/mail
  and the paths the examples name made to exist.  A command shown with its
  output (a `console` block) must print that output now; the rest must exit
  with a status the README documents and never show a traceback.  The few
  recipe lines that need a service are listed in NOT_RUN_HERE with the reason.

The Library API block is run by tests/test_library_api.py, the first procmail
recipe by tests/system/test_procmail.py.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

from conftest import ROOT, SAMPLE

README = ROOT / "README.md"
MAX_LINES = 450
SETUP_COMMANDS = ["make demo", "make test"]

# Lines of the README's code blocks that name a spamnb command and are not run
# here, each with the reason.  Everything else that names one is run below.
NOT_RUN_HERE = {
    "VERDICT=`spamnb classify --format tsv | cut -f2 | tail -n 1`":
        "the procmail recipe: tests/system/test_procmail.py runs it under the real procmail",
    "| spamnb filter":
        "procmail's tagging recipe: tests/system/test_procmail.py runs it under the real procmail",
    "spamnb serve --spamd 127.0.0.1:783 --spamd-learn &":
        "binds the spamd port 783; tests/app/test_spamd.py runs `serve --spamd` against the real spamc on a free port",
    "exec spamnb filter --model /var/lib/spamnb/model.spamnb":
        "Dovecot's sieve_extprograms runs it (not installed here); `spamnb filter` runs here in the filter block",
    'spamnb filter --model /var/lib/spamnb/model.spamnb > "$tmp"':
        "Postfix's pipe runs it (not installed here); `spamnb filter` runs here in the filter block",
    'xfilter "spamnb filter"':
        "maildrop runs it (not installed here); `spamnb filter` runs here in the filter block",
}

SHELL_BLOCKS = {"sh", "shell", "bash", "console", "cron"}
COMMANDS = ("train", "classify", "inspect", "evaluate", "learn", "filter", "serve", "export", "import",
            "merge", "prune", "completion")
NAMES_A_COMMAND = re.compile(r"\bspamnb (?:-\S+ \S+ )?(?:%s)\b" % "|".join(COMMANDS))


def code_blocks(text: str) -> list[tuple[str, list[str]]]:
    """(language, lines) of every fenced code block, in order."""
    return [(match.group(1), match.group(2).splitlines())
            for match in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.S | re.M)]


# -- 1. short, and the two set-up commands first ------------------------------------------------

def check_opening(text: str) -> None:
    lines = text.splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines, at most {MAX_LINES}"
    before_first_block = text.split("```", 1)[0]
    assert [line for line in before_first_block.splitlines() if line.strip()] == ["# spamnb"], \
        "the README opens with its title, then the set-up commands"
    language, block = code_blocks(text)[0]
    commands = [line.split("#", 1)[0].strip() for line in block if line.split("#", 1)[0].strip()]
    assert language == "sh" and commands == SETUP_COMMANDS, commands


def test_readme_is_short_and_opens_with_make_demo_and_make_test():
    check_opening(README.read_text(encoding="utf-8"))
    makefile = (ROOT / "Makefile").read_text()
    for target in ("demo", "test"):
        assert re.search(rf"^{target}: \$\(VENV\)/\.installed", makefile, re.M), target  # each installs first


# -- 2. the option tables name the CLI's defaults ---------------------------------------------

def option_table_rows(text: str) -> list[tuple[list[str], str, str, str]]:
    """(commands the table is under, option, default and meaning cells) of every row of every
    `| option | default | meaning |` table; the commands are those its heading names."""
    rows, commands = [], []
    lines = text.splitlines()
    for number, line in enumerate(lines):
        if line.startswith("#"):
            commands = [word for word in re.findall(r"`(?:spamnb )?(\w+)", line) if word in COMMANDS]
        if line.strip() == "| option | default | meaning |":
            assert commands, f"README line {number + 1}: an option table under a heading naming no command"
            for row in lines[number + 2:]:
                if not row.startswith("|"):
                    break
                cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", row.strip().strip("|"))]
                rows.append((commands, cells[0], cells[1], cells[2]))
    return rows


def _option_names(cell: str) -> list[str]:
    """`--bigrams/--no-bigrams` → --bigrams; `--spam-cutoff P`, `--ham-cutoff P` → both."""
    return [name.split("/")[0] for name in re.findall(r"`(-[-\w]+(?:/--[-\w]+)?)", cell)]


def _train_options_default(name: str):
    import spamnb

    options = spamnb.TrainOptions()
    attribute = name.lstrip("-").replace("-", "_")
    for holder in (options, options.tokenizer):
        if hasattr(holder, attribute):
            return getattr(holder, attribute)
    return None


def cli_default(command: str, name: str) -> str | None:
    """The default `spamnb COMMAND --help` states for option NAME, else the one
    the library applies (TrainOptions) when the command line leaves it unset;
    None if the option has none (a flag, a path to give)."""
    from spamnb.app.cli import cli

    cmd = cli.commands[command]
    param = next((p for p in cmd.params if name in p.opts + p.secondary_opts), None)
    if param is None:
        return None
    with click.Context(cmd, info_name=command) as context:
        record = param.get_help_record(context)
    help_text = " ".join(record[1].split()) if record else ""
    shown = re.search(r"\[default: ([^;\]]+)", help_text)
    if shown:
        return shown.group(1)
    said = re.search(r"Default: (.+?)(?:\.\s|\.$|$)", help_text)
    if said:
        return said.group(1)
    if getattr(param, "is_flag", False) and param.secondary_opts:  # --bigrams/--no-bigrams
        value = _train_options_default(name)
        return None if value is None else ("on" if value else "off")
    if param.default not in (None, False) and not getattr(param, "is_flag", False) \
            and type(param.default).__name__ != "Sentinel":
        return str(param.default)
    value = _train_options_default(name)
    return None if value is None or isinstance(value, (frozenset, tuple)) else str(value)


def _same_default(shown: str, actual: str) -> bool:
    try:
        return float(shown) == float(actual)
    except ValueError:
        return actual.lower().startswith(shown.lower())  # "fitted" of "fitted on forward-chained …"


def check_option_defaults(text: str) -> int:
    checked = 0
    for commands, option_cell, default_cell, meaning_cell in option_table_rows(text):
        names = _option_names(option_cell)
        assert names, f"no option in the cell {option_cell!r}"
        shown = re.sub(r"\s*\(.*?\)", "", default_cell).replace("`", "").strip()
        # A row of several options names their defaults in order, split by commas.
        shown_values = [value.strip() for value in shown.split(",")] if len(names) > 1 else [shown]
        shown_values = [value for value in shown_values if value]
        # A row whose meaning starts with the commands it is about (`classify`, `filter`: …)
        # is checked against those; else against every command the heading names.
        named = [word for word in re.findall(r"`(\w+)`", meaning_cell.split(":", 1)[0]) if word in COMMANDS]
        for index, name in enumerate(names):
            owners = [command for command in (named or commands)
                      if any(name in p.opts + p.secondary_opts for p in _params(command))]
            assert owners, f"{name}: no command among {named or commands} has it"
            for command in owners:
                actual = cli_default(command, name)
                if not shown_values:
                    assert actual is None or actual in ("0", "0.0", "None"), \
                        f"`spamnb {command} {name}`: the README names no default, the CLI's is {actual!r}"
                    continue
                shown = shown_values[min(index, len(shown_values) - 1)]
                if shown in ("built-in",):
                    assert actual is None, (command, name, actual)
                    continue
                assert actual is not None and _same_default(shown, actual), \
                    f"`spamnb {command} {name}`: README says default {shown!r}, the CLI {actual!r}"
                checked += 1
    return checked


def _params(command: str):
    from spamnb.app.cli import cli

    return cli.commands[command].params


def test_option_tables_name_the_command_lines_defaults():
    text = README.read_text(encoding="utf-8")
    checked = check_option_defaults(text)
    assert checked >= 25, checked  # the tables cover train, classify, filter, learn, inspect, evaluate, serve
    # The defaults the brief names, read from --help itself.
    from conftest import run_spamnb

    help_text = " ".join(run_spamnb("train", "--help").stdout.decode().split())
    for option, value in (("--min-strength", "1.25"), ("--alpha", "0.1"), ("--retrain-margin", "3")):
        row = next(row for row in option_table_rows(text) if row[1].startswith(f"`{option} "))
        assert float(row[2].strip("`")) == float(value)
        assert re.search(rf"{option} FLOAT RANGE .*?\[default: {value}", help_text), option


# -- 3. every spamnb command shown runs ------------------------------------------------------

def shell_commands(text: str) -> list[dict]:
    """The README's spamnb command lines, in order: each with its block number, whether
    it runs in the background (`&`), and for a `console` block the output shown."""
    found = []
    for number, (language, lines) in enumerate(code_blocks(text)):
        if language not in SHELL_BLOCKS:
            continue
        if lines and lines[0].startswith("#!"):  # a script an MTA runs: its lines are in NOT_RUN_HERE
            continue
        if language == "console":
            for line in lines:
                if line.startswith("$ "):
                    found.append({"block": number, "line": line[2:], "shown": []})
                elif found and found[-1]["block"] == number:
                    found[-1]["shown"].append(line)
            continue
        for line in lines:
            command = as_command(language, line)
            if command.startswith("spamnb "):
                found.append({"block": number, "line": command, "shown": None})
    return found


def as_command(language: str, line: str) -> str:
    """A code line as the shell would run it: no trailing comment, no cron schedule."""
    command = re.sub(r"\s+#.*$", "", line).strip()
    if language == "cron" and command and not command.startswith("#"):
        command = command.split(None, 5)[5]
    return command


def lines_naming_a_command(text: str) -> list[str]:
    named = []
    for language, lines in code_blocks(text):
        if language in ("python", "toml"):
            continue
        if language == "console":  # commands after the prompt; the rest is their output
            lines = [line[2:] for line in lines if line.startswith("$ ")]
        for line in lines:
            code = as_command(language, line)
            if NAMES_A_COMMAND.search(code):
                named.append(code)
    return named


def test_every_spamnb_command_line_is_run_here_or_listed_with_a_reason():
    text = README.read_text(encoding="utf-8")
    run = {command["line"] for command in shell_commands(text)}
    for line in lines_naming_a_command(text):
        assert line in run or line in NOT_RUN_HERE, f"README shows {line!r}, which no test runs"
    listed = set(lines_naming_a_command(text))
    assert set(NOT_RUN_HERE) <= listed, f"NOT_RUN_HERE lists lines the README lost: {set(NOT_RUN_HERE) - listed}"


def readme_home(base: Path) -> tuple[Path, dict]:
    """A home where the README's paths exist: `message.eml` and the mail folders it names
    are sample_data's, linked; the default model lives here, under ~/.local/share."""
    home = base / "home"
    work = home / "work"
    work.mkdir(parents=True)
    links = {
        work / "sample_data": SAMPLE,
        work / "message.eml": SAMPLE / "maildir" / "spam" / "new" / "1739205492.M2P4102.sample",
        work / "recent-mail": SAMPLE / "mail",
        home / "Mail" / "spam": SAMPLE / "mail" / "spam",
        home / "Mail" / "inbox": SAMPLE / "mail" / "ham",
        home / "Mail" / "missed-spam": SAMPLE / "maildir" / "spam",
        home / "Mail" / "false-alarms": SAMPLE / "maildir" / "ham",
        home / "Maildir-honeypot": SAMPLE / "maildir" / "spam",
    }
    for link, target in links.items():
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(target)
    (home / ".local" / "share" / "bash-completion" / "completions").mkdir(parents=True)
    runtime = Path(tempfile.mkdtemp(prefix="snb-", dir="/tmp"))  # a socket path must stay under 108 bytes
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("SPAMNB_", "XDG_"))}
    env.update(HOME=str(home), XDG_RUNTIME_DIR=str(runtime), COLUMNS="100")
    return work, env


def normalised(output: str, home: Path) -> list[str]:
    """Output lines with what differs from run to run put as the README writes it."""
    output = output.replace(str(home), "/home/you")
    output = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", "2026-01-01T00:00:00+00:00", output)
    output = re.sub(r"(tokens), [0-9.]+ s$", r"\1, 1.0 s", output, flags=re.M)
    return [line.rstrip() for line in output.splitlines()]


def shows(shown: list[str], printed: list[str]) -> bool:
    """The lines shown are the output; with a `…` line among them, they are the output's
    lines in order with the rest left out."""
    shown = [line.rstrip() for line in shown]
    if "…" not in shown:
        return shown == printed
    position = 0
    for line in shown:
        if line == "…":
            continue
        try:
            position = printed.index(line, position) + 1
        except ValueError:
            return False
    return True


def expected_statuses(line: str) -> set[int]:
    """What the README documents for the line: 0, or with --exit-code 0/1/2 (a verdict)."""
    return {0, 1, 2} if "--exit-code" in line else {0}


def run_readme_commands(text: str, work: Path, env: dict) -> list[str]:
    """Run every command of the README in order; the problems found."""
    problems = []
    prelude = f'set -o pipefail; spamnb() {{ {shlex.quote(sys.executable)} -m spamnb "$@"; }}; '
    servers: dict[int, subprocess.Popen] = {}
    home = Path(env["HOME"])

    def stop_servers(before_block: int | None = None):
        for block, server in list(servers.items()):
            if before_block is not None and block == before_block:
                continue
            server.send_signal(signal.SIGTERM)
            _, stderr = server.communicate(timeout=30)
            if server.returncode != 0 or "Traceback" in stderr:
                problems.append(f"server of block {block}: exit {server.returncode}: {stderr[-500:]}")
            del servers[block]

    for command in shell_commands(text):
        line = command["line"]
        if line in NOT_RUN_HERE:
            continue
        stop_servers(before_block=command["block"])  # a server lives for its own block
        if line.endswith("&"):
            server = subprocess.Popen([sys.executable, "-m", "spamnb", *shlex.split(line[:-1])[1:]], cwd=work,
                                      env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True)
            socket = Path(env["XDG_RUNTIME_DIR"]) / "spamnb" / "serve.sock"
            deadline = time.monotonic() + 60
            while not socket.exists() and server.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            servers[command["block"]] = server
            if not socket.exists():
                problems.append(f"{line}: no socket at {socket}")
            continue
        result = subprocess.run(["bash", "-c", prelude + line], cwd=work, env=env, capture_output=True,
                                text=True, timeout=300, stdin=subprocess.DEVNULL)
        if "Traceback" in result.stdout + result.stderr:
            problems.append(f"{line}: a traceback:\n{result.stderr}")
        if result.returncode not in expected_statuses(line):
            problems.append(f"{line}: exit {result.returncode}, the README documents "
                            f"{sorted(expected_statuses(line))}:\n{result.stderr}")
        if command["shown"] is not None:
            printed = normalised(result.stdout + result.stderr, home)
            if not shows(command["shown"], printed):
                problems.append(f"$ {line}\nthe README shows:\n" + "\n".join(command["shown"])
                                + "\nit prints:\n" + "\n".join(printed))
    stop_servers()
    return problems


def test_every_spamnb_command_the_readme_shows_runs_as_shown(tmp_path):
    text = README.read_text(encoding="utf-8")
    commands = shell_commands(text)
    assert commands[0]["line"].startswith("spamnb train"), "the first command trains the model the rest use"
    assert len(commands) >= 20, len(commands)
    work, env = readme_home(tmp_path)
    try:
        problems = run_readme_commands(text, work, env)
    finally:
        shutil.rmtree(env["XDG_RUNTIME_DIR"], ignore_errors=True)
    assert not problems, "\n\n".join(problems)
    # What the commands were to leave behind is there.
    home = Path(env["HOME"])
    assert (home / ".local" / "share" / "spamnb" / "model.spamnb").is_file()
    assert (work / "tagged.eml").read_bytes().count(b"X-Spamnb-Status: ") == 1
    assert (home / ".local" / "share" / "bash-completion" / "completions" / "spamnb").stat().st_size > 0
