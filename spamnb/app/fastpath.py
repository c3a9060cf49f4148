"""The `spamnb` entry point, with a fast path for scoring mail.

A mail filter starts `spamnb classify` once per message, so start-up is
most of its cost.  The full command line imports click (20 ms) before it
parses anything; this module parses the common scoring command lines itself
and scores with the standard library alone (scorer.py), and hands every
other command line to the click CLI unchanged:

    spamnb classify [--model M | --server SOCKET] [--format F] [--exit-code] [-j N]
                    [--timeout SECONDS] [PATH ...]
    spamnb learn (--spam PATH | --ham PATH)... [PATH ...] [--model M | --server SOCKET] [-q]
                 [--forget] [--relabel] [--force] [--on-error]

`learn` into an existing model appends to its journal (incremental.py) in
milliseconds; importing click and numpy would cost more than the learning.

The fast path runs only where its result is the full CLI's: no config file
and no SPAMNB_* setting other than SPAMNB_MODEL (either can change
defaults, and the CLI's rules for them stay in one place), and no option
other than those above.  tests/app/test_fastpath.py checks the outputs agree.
"""

from __future__ import annotations

import gc
import os
import sys

from ..errors import say_on_stderr

TYPE_CHECKING = False  # mypy reads this name as true; typing stays unimported on this cold-start path
if TYPE_CHECKING:
    from typing import Any

_FORMATS = ("text", "tsv", "json", "jsonl")


def parse_classify(args: list[str]) -> dict | None:
    """The classify options the fast path serves, or None to leave it to the CLI."""
    if not args or args[0] != "classify":
        return None
    wanted: dict[str, Any] = {"model": None, "server": None, "format": "text", "exit_code": False, "jobs": None,
              "timeout": None, "paths": []}
    rest = args[1:]
    index = 0
    while index < len(rest):
        arg = rest[index]
        if arg == "--":
            wanted["paths"].extend(rest[index + 1:])
            break
        name, equals, value = arg.partition("=")
        if name in ("--model", "-m", "--format", "--jobs", "-j", "--server", "--timeout"):
            if not equals:
                index += 1
                if index >= len(rest):
                    return None
                value = rest[index]
            key = {"--format": "format", "--jobs": "jobs", "-j": "jobs", "--server": "server",
                   "--timeout": "timeout"}.get(name, "model")
            if key == "format" and value not in _FORMATS:
                return None  # the CLI says what is wrong
            if key in ("model", "server") and os.path.isdir(value):
                return None  # click refuses a directory here as a usage error
            if key == "jobs":
                if not value.isdigit() or int(value) < 1:
                    return None
                value = int(value)  # type: ignore[assignment]  # the option's value, parsed
            if key == "timeout":
                try:
                    value = float(value)  # type: ignore[assignment]  # the option's value, parsed
                except ValueError:
                    return None
                if not 0 <= value < float("inf"):  # type: ignore[operator]  # a float by now
                    return None  # negative, infinite or not a number: the CLI says what is wrong
            wanted[key] = value
        elif arg == "--exit-code":
            wanted["exit_code"] = True
        elif arg.startswith("-") and arg != "-":
            return None
        else:
            wanted["paths"].append(arg)
        index += 1
    if wanted["server"] is not None and (wanted["model"] is not None or (wanted["jobs"] or 1) > 1):
        return None  # the CLI says why these do not go together
    return wanted


_LEARN_FLAGS = {"--forget": "forget", "--relabel": "relabel", "--force": "force", "--on-error": "on_error",
                "-q": "quiet", "--quiet": "quiet"}


def parse_learn(args: list[str]) -> dict | None:
    """The learn options the fast path serves, or None to leave it to the CLI:
    only into a model that exists, with no training option (those only apply
    when learn creates a model, which the CLI does)."""
    if not args or args[0] != "learn":
        return None
    wanted: dict[str, Any] = {"model": None, "server": None, "spam": [], "ham": [], "paths": [], "forget": False,
              "relabel": False, "force": False, "on_error": False, "quiet": False}
    rest = args[1:]
    index = 0
    while index < len(rest):
        arg = rest[index]
        name, equals, value = arg.partition("=")
        if name in ("--model", "-m", "--spam", "--ham", "--server"):
            if not equals:
                index += 1
                if index >= len(rest):
                    return None
                value = rest[index]
            if name in ("--model", "-m"):
                wanted["model"] = value
            elif name == "--server":
                wanted["server"] = value
            else:
                wanted[name[2:]].append(value)
        elif arg in _LEARN_FLAGS:
            wanted[_LEARN_FLAGS[arg]] = True
        elif arg.startswith("-") and arg != "-":
            return None
        else:
            wanted["paths"].append(arg)
        index += 1
    if bool(wanted["spam"]) == bool(wanted["ham"]) and (wanted["paths"] or not wanted["spam"]):
        return None  # both labels with extra paths, or none: the CLI says what is wrong
    if wanted["forget"] and (wanted["relabel"] or wanted["on_error"]):
        return None
    (wanted["spam"] if wanted["spam"] else wanted["ham"]).extend(wanted["paths"])
    if wanted["server"] is not None:
        # The server learns into its own model, created there if missing.
        return wanted if wanted["model"] is None and not os.path.isdir(wanted["server"]) else None
    model = wanted["model"]
    if not model:
        from .paths import default_model_path

        model = str(default_model_path())
    if not os.path.isfile(model):
        return None  # creating one, or a path that is not a model: the CLI
    wanted["model"] = model
    return wanted


def learn(wanted: dict) -> int:
    if wanted["server"] is not None:
        from .render import learn_summary, skipped_summary
        from .server import learn_remote

        _started()
        flags = tuple(flag for flag in ("forget", "relabel", "force", "on_error") if wanted[flag])
        report, model, created, skipped = learn_remote(wanted["server"], wanted["spam"], wanted["ham"],
                                                       tuple(flag.replace("_", "-") for flag in flags))
        for line in skipped_summary(skipped):
            say_on_stderr(line)
        if not wanted["quiet"]:
            print("\n".join(learn_summary(report, wanted["forget"], model, created)))
        return 0
    from ..learning.incremental import learn_file
    # What learn_file imports when it reads and appends, imported here, before
    # the collector is on (_started).
    from ..learning import labelled
    from ..model import journal, modelfile, modelread, modelstore, opening, scorer  # noqa: F401

    _started()
    try:
        report, created = learn_file(wanted["model"], wanted["spam"], wanted["ham"],
                                     labelled.LearnFlags(forget=wanted["forget"], relabel=wanted["relabel"],
                                                         force=wanted["force"], on_error=wanted["on_error"]))
    except ValueError as error:
        from ..errors import InputError

        raise InputError(str(error)) from None
    if report.reading.skipped or not wanted["quiet"]:
        # render (with the scoring rule's module) is 1 ms of a fresh process a quiet learn need not pay.
        from .render import learn_summary, skipped_summary

        for line in skipped_summary(report.reading.skipped):
            say_on_stderr(line)
        if not wanted["quiet"]:
            print("\n".join(learn_summary(report, wanted["forget"], wanted["model"], created)))
    return 0


def classify(wanted: dict) -> int:
    from .classify import classify_paths
    from .deadline import DEFAULT_TIMEOUT
    from .render import ScoreWriter, skipped_summary

    if wanted["server"] is not None:
        from .server import RemoteScorer

        # Not the scorer's modules (tokens, messages, model files): the server scores.
        scorer, jobs = RemoteScorer(wanted["server"]), 1
    else:
        from .paths import default_model_path
        from ..model.opening import open_scorer
        from ..workers import default_jobs

        scorer = open_scorer(wanted["model"] or str(default_model_path()))  # type: ignore[assignment]  # either scorer serves classify_paths
        jobs = wanted["jobs"] or default_jobs()
    _started()
    timeout = DEFAULT_TIMEOUT if wanted["timeout"] is None else wanted["timeout"]
    outcome = classify_paths(scorer, wanted["paths"], ScoreWriter(sys.stdout, wanted["format"]), jobs=jobs,  # type: ignore[arg-type]
                             timeout=None if wanted["server"] is not None else timeout)
    sys.stdout.flush()
    for line in outcome.notes + outcome.problems + skipped_summary(outcome.skipped):
        say_on_stderr(line)
    return outcome.exit_status(wanted["exit_code"])


_COMMANDS = frozenset({"train", "classify", "serve", "evaluate", "learn", "filter", "export", "merge", "import",
                       "prune", "inspect", "completion"})


def is_filter(args: list[str]) -> bool:
    """Whether the command line asks for `filter`: the first command name in
    it is `filter`, whatever else (a mistyped global option) comes before."""
    return next((arg for arg in args if arg in _COMMANDS), None) == "filter"


def _exit(status: int) -> None:
    """End the process at once, output flushed: the interpreter's teardown
    (freeing every module, a last collection) is 12 of a cold classify's
    ~180 million instructions, and nothing of the fast path needs it: files
    written are closed and fsynced, worker pools shut down, the lock goes
    with the process.  Output that cannot be flushed (a full disk, a closed
    pipe) is left to the normal exit, which reports it as it always did."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        sys.exit(status)
    os._exit(status)


def run_full_cli(args: list[str]) -> None:
    """The click command line, imported only when a command needs it."""
    from .cli import main as full_main

    full_main(args)


_collector_off = False


def _started() -> None:
    """Start-up is over (the modules a command needs are imported): collect
    garbage from here on, the objects made so far frozen (left out of every
    collection; they live as long as the process).  main turns the collector
    off in a process of its own: the collections the imports set off scanned
    the same module objects again and again (4 of a fresh `learn`'s 66
    million instructions)."""
    global _collector_off
    if _collector_off:
        _collector_off = False
        gc.freeze()
        gc.enable()


def main(argv: list[str] | None = None) -> None:
    global _collector_off
    if argv is None and gc.isenabled():
        gc.disable()  # until _started
        _collector_off = True
    args = sys.argv[1:] if argv is None else list(argv)
    if is_filter(args):
        # The message is handed back whatever fails, the command line included.
        from .filtering import main as filter_main

        _started()
        sys.exit(filter_main(args, run_full_cli))
    wanted, command = parse_classify(args), classify
    if wanted is None:
        wanted, command = parse_learn(args), learn
    from .config import in_effect

    if wanted is None or in_effect():
        _started()
        run_full_cli(args)
        return
    # The C module: signal.py wraps every constant in an enum, and enum brings
    # functools and collections: with collections below, 4-5 ms of a cold
    # classify, the margin that keeps it within 2x Python's own start
    # (BENCHMARKS.md, "Private CPython modules on the cold path").
    import _signal as signal  # type: ignore[import-not-found]  # CPython's private C module, no stubs

    from ..errors import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_MODEL_ERROR, SpamnbError, os_error_line

    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `spamnb classify dir | head` ends quietly
    try:
        status = command(wanted)
    except SpamnbError as error:
        say_on_stderr(error)
        status = error.exit_status
    except KeyboardInterrupt:
        say_on_stderr("interrupted")
        status = EXIT_INTERRUPTED
    except OSError as error:  # standard output on a full disk, say: as the CLI reports it
        say_on_stderr(os_error_line(error))
        status = EXIT_MODEL_ERROR
    except Exception as error:  # a bug: one line, as the CLI reports it
        if os.environ.get("SPAMNB_DEBUG"):
            raise
        say_on_stderr(f"internal error: {type(error).__name__}: {error} "
                      "(set SPAMNB_DEBUG=1 for the traceback, and please report it)")
        status = EXIT_INTERNAL
    if argv is None:  # a process of its own (called with argv, as tests do, it returns through SystemExit)
        _exit(status)
    sys.exit(status)
