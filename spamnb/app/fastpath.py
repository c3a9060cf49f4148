"""The `spamnb` entry point, with a fast path for scoring mail.

A mail filter starts `spamnb classify` once per message, so start-up is
most of its cost.  The full command line imports click (about 40 ms of a
scoring process: BENCHMARKS.md, "Private CPython modules on the cold path")
before it parses anything; this module parses the common scoring command lines itself
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
other than those above.  Both parsers read each option, and the rules on
how options go together, from optiontable.py; tests/app/test_fastpath.py
checks the outputs agree.
"""

from __future__ import annotations

import gc
import os
import sys

from ..errors import say_on_stderr
from .optiontable import (CLASSIFY_SERVER_DOES, FAST_CLASSIFY, FAST_LEARN, LEARN_SERVER_DOES, check_jobs_with_server,
                          check_learn_flags, check_model_with_server, label_paths, learn_flags_given, parse)

def parse_classify(args: list[str]) -> dict | None:
    """The classify options the fast path serves, by parameter name, or None
    to leave the command line to the CLI."""
    if not args or args[0] != "classify":
        return None
    return parse(args[1:], FAST_CLASSIFY)


def parse_learn(args: list[str]) -> dict | None:
    """The learn options the fast path serves, or None to leave them to the
    CLI: only into a model that exists (or through a server), with no
    training option (those apply only when learn creates a model, which the
    CLI does)."""
    if not args or args[0] != "learn":
        return None
    wanted = parse(args[1:], FAST_LEARN)
    if wanted is None or wanted["server_path"] is not None:
        return wanted
    model = wanted["model_path"]
    if not model:
        from .paths import default_model_path

        model = str(default_model_path())
    if not os.path.isfile(model):
        return None  # creating one, or a path that is not a model: the CLI
    wanted["model_path"] = model
    return wanted


def learn(wanted: dict) -> int:
    spam_paths, ham_paths = label_paths(wanted["paths"], wanted["spam_paths"], wanted["ham_paths"])
    check_learn_flags(wanted["forget"], wanted["relabel"], wanted["on_error"])
    if wanted["server_path"] is not None:
        check_model_with_server(wanted["model_path"] is not None, LEARN_SERVER_DOES)
        from .render import learn_summary, skipped_summary
        from .server import learn_remote

        _started()
        flags = learn_flags_given(wanted)
        report, model, created, skipped = learn_remote(wanted["server_path"], spam_paths, ham_paths, flags)
        for line in skipped_summary(skipped):
            say_on_stderr(line)
        if not wanted["quiet"]:
            print("\n".join(learn_summary(report, "forget" in flags, model, created)))
        return 0
    from ..learning.incremental import learn_file
    # What learn_file imports when it reads and appends, imported here, before
    # the collector is on (_started).
    from ..learning import labelled
    from ..model import journal, modelread, modelstore, scorer  # noqa: F401

    _started()
    try:
        report, created = learn_file(wanted["model_path"], spam_paths, ham_paths,
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
            print("\n".join(learn_summary(report, wanted["forget"], wanted["model_path"], created)))
    return 0


def classify(wanted: dict) -> int:
    from .classify import classify_paths
    from .render import ScoreWriter, skipped_summary

    if wanted["server_path"] is not None:
        check_jobs_with_server(wanted["jobs"])
        check_model_with_server(wanted["model_path"] is not None, CLASSIFY_SERVER_DOES)
        from .server import RemoteScorer

        # Not the scorer's modules (tokens, messages, model files): the server scores.
        scorer, jobs = RemoteScorer(wanted["server_path"]), 1
    else:
        from .paths import default_model_path
        from ..model.opening import open_scorer
        from ..workers import default_jobs

        scorer = open_scorer(wanted["model_path"] or str(default_model_path()))  # type: ignore[assignment]  # either scorer serves classify_paths
        jobs = wanted["jobs"] or default_jobs()
    _started()
    outcome = classify_paths(scorer, wanted["paths"], ScoreWriter(sys.stdout, wanted["fmt"]), jobs=jobs,  # type: ignore[arg-type]
                             timeout=None if wanted["server_path"] is not None else wanted["timeout"])
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
    (freeing every module, a last collection) is about a fifteenth of a cold
    classify's work, and nothing of the fast path needs it: files
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
    the same module objects again and again (about a sixteenth of a fresh
    `learn`)."""
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
    # functools and collections: about 7 ms of a cold classify, a third of it,
    # and what keeps it within 2x Python's own start (BENCHMARKS.md, "Private
    # CPython modules on the cold path").
    import _signal as signal  # type: ignore[import-not-found]  # CPython's private C module, no stubs

    from ..errors import reported

    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `spamnb classify dir | head` ends quietly
    try:
        status = command(wanted)
    except (Exception, KeyboardInterrupt) as error:  # one line and a documented status, as the CLI ends
        status = reported(error)
    if argv is None:  # a process of its own (called with argv, as tests do, it returns through SystemExit)
        _exit(status)
    sys.exit(status)
