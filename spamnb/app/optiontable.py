"""The options both command-line parsers read, each declared once.

`spamnb classify` and `spamnb learn` are read by two parsers: the fast path
(fastpath.py), which serves the common command lines without importing
click, and click (app/commands), which serves everything.  Both take each
option's names, the parameter it fills, its default and what its value may
be from the declarations here, and both apply the rules below on how options
go together, so the two cannot read one command line two ways.  This module
imports nothing the fast path does not already load.
"""

from __future__ import annotations

import os

from ..errors import OptionError

# The longest --timeout: past a billion seconds a deadline means "none", which 0 says.
MAX_SECONDS = 1e9
# --timeout's default in seconds (deadline.py applies the deadline): declared
# with the option, so that a `learn` need not import deadline.py to parse.
DEFAULT_TIMEOUT = 10.0

SCORE_FORMATS = ("text", "tsv", "json", "jsonl")


class Option:
    """One option: its flags ("--model", "-m"), the parameter it fills
    (`dest`), its default, and the kind of value it takes:

    flag     none: True when given
    file     a path that is not a folder (a file, or nothing yet)
    path     any path
    choice   one of `choices`
    count    a whole number, at least 1
    seconds  a number of seconds, 0 to MAX_SECONDS

    `multiple`: may be given more than once; the parameter is then a list.
    """

    __slots__ = ("flags", "dest", "kind", "default", "choices", "multiple", "metavar")

    def __init__(self, *flags: str, dest: str, kind: str, default: object = None, choices: tuple[str, ...] = (),
                 multiple: bool = False, metavar: str | None = None) -> None:
        self.flags, self.dest, self.kind, self.default = flags, dest, kind, default
        self.choices, self.multiple, self.metavar = choices, multiple, metavar

    def value_of(self, text: str) -> object:
        """The option's value from its text on the command line, as click
        converts it (int() and float() take what click's types take);
        ValueError for a value click refuses."""
        if self.kind == "file":
            if os.path.isdir(text):
                raise ValueError(f"{text} is a folder")
            return text
        if self.kind == "choice":
            if text not in self.choices:
                raise ValueError(f"{text!r} is not one of {', '.join(self.choices)}")
            return text
        if self.kind == "count":
            number = int(text)
            if number < 1:
                raise ValueError(f"{number} is below 1")
            return number
        if self.kind == "seconds":
            seconds = float(text)
            if not 0 <= seconds <= MAX_SECONDS:  # NaN fails both comparisons
                raise ValueError(f"{seconds} is not in 0 to {MAX_SECONDS:g}")
            return seconds
        return text


MODEL = Option("--model", "-m", dest="model_path", kind="file")
SERVER = Option("--server", dest="server_path", kind="file", metavar="SOCKET")
FORMAT = Option("--format", dest="fmt", kind="choice", default="text", choices=SCORE_FORMATS)
EXIT_CODE = Option("--exit-code", dest="exit_code", kind="flag", default=False)
JOBS = Option("-j", "--jobs", dest="jobs", kind="count")
TIMEOUT = Option("--timeout", dest="timeout", kind="seconds", default=DEFAULT_TIMEOUT, metavar="SECONDS")
QUIET = Option("--quiet", "-q", dest="quiet", kind="flag", default=False)
SPAM = Option("--spam", dest="spam_paths", kind="path", multiple=True)
HAM = Option("--ham", dest="ham_paths", kind="path", multiple=True)
FORGET = Option("--forget", dest="forget", kind="flag", default=False)
RELABEL = Option("--relabel", dest="relabel", kind="flag", default=False)
FORCE = Option("--force", dest="force", kind="flag", default=False)
ON_ERROR = Option("--on-error", dest="on_error", kind="flag", default=False)

# What the fast path serves of each command; any other option sends the
# command line to click.
FAST_CLASSIFY = (MODEL, SERVER, FORMAT, EXIT_CODE, JOBS, TIMEOUT)
FAST_LEARN = (SPAM, HAM, MODEL, SERVER, QUIET, FORGET, RELABEL, FORCE, ON_ERROR)


def parse(args: list[str], options: tuple[Option, ...]) -> dict | None:
    """A command's arguments (its name gone) read against `options`: each
    option's value by its parameter name, and "paths" for the arguments.
    None for anything else (an option not among them, a value the option
    refuses, a value missing): click then reads the command line and says
    what is wrong."""
    by_flag = {flag: option for option in options for flag in option.flags}
    given: dict[str, object] = {option.dest: [] if option.multiple else option.default for option in options}
    paths: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--":
            paths.extend(args[index:])
            break
        name, equals, text = arg.partition("=")
        option = by_flag.get(name)
        if option is None:
            if arg.startswith("-") and arg != "-":
                return None
            paths.append(arg)
            continue
        if option.kind == "flag":
            if equals:
                return None
            given[option.dest] = True
            continue
        if not equals:
            if index >= len(args):
                return None
            text = args[index]
            index += 1
        try:
            value = option.value_of(text)
        except ValueError:
            return None
        if option.multiple:
            given[option.dest].append(value)  # type: ignore[attr-defined]  # the option's list
        else:
            given[option.dest] = value
    given["paths"] = paths
    return given


# How options go together: one home for each rule, applied by both parsers.

def check_jobs_with_server(jobs: int | None) -> None:
    if jobs is not None and jobs > 1:
        raise OptionError("-j does not go with --server: the server scores the messages")


def label_paths(paths, spam_paths, ham_paths) -> tuple[list[str], list[str]]:
    """The spam and ham sources of `learn`: PATHS after the options belong to
    the one label given (`learn --spam a.eml b.eml dir/`)."""
    spam_paths, ham_paths = list(spam_paths), list(ham_paths)
    if paths:
        if spam_paths and ham_paths:
            raise OptionError("with both --spam and --ham, give each path after its own --spam or --ham")
        if not spam_paths and not ham_paths:
            raise OptionError("say what the messages are: --spam PATH... or --ham PATH...")
        (spam_paths if spam_paths else ham_paths).extend(paths)
    if not spam_paths and not ham_paths:
        raise OptionError("give messages with --spam PATH and/or --ham PATH")
    return spam_paths, ham_paths


def check_learn_flags(forget: bool, relabel: bool, on_error: bool) -> None:
    if forget and (relabel or on_error):
        raise OptionError("--forget does not go with --relabel or --on-error")


def check_model_with_server(model_given: bool, what_the_server_does: str) -> None:
    if model_given:
        raise OptionError(f"--model does not go with --server: the server {what_the_server_does}")


LEARN_FLAG_OPTIONS = (FORGET, RELABEL, FORCE, ON_ERROR)
# The same flags as a learn request to a server names them.
LEARN_FLAGS = tuple(option.flags[0][2:] for option in LEARN_FLAG_OPTIONS)


def learn_flags_given(given: dict) -> tuple[str, ...]:
    """The learn flags set in `given` (parameters by name), as a server is
    sent them: "forget", "on-error"..."""
    return tuple(name for name, option in zip(LEARN_FLAGS, LEARN_FLAG_OPTIONS) if given[option.dest])


CLASSIFY_SERVER_DOES = "scores with the model it was started with"
LEARN_SERVER_DOES = "learns into the model it serves"
