"""`spamnb classify`: spam, ham or unsure for each message, here or through a server."""

from __future__ import annotations

import sys
import click

from ...errors import OptionError, say_on_stderr
from ..optiontable import CLASSIFY_SERVER_DOES, check_jobs_with_server, check_model_with_server
from .options import (cutoff_options, cutoffs_given, exit_code_option, jobs_option, max_size_option, model_option,
                      model_path_or_default, score_format_option, server_option, timeout_option)


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@model_option
@score_format_option("text for people; tsv, json (one array) or jsonl (one object a line) "
                     "with path, label, score (P(spam)), log_odds.")
@cutoff_options("P(spam) at or above which a message is spam.  Default: the model's.",
                "P(spam) at or below which a message is ham.  Default: the model's.")
@max_size_option("Bytes of each message read; the rest is ignored.")
@click.option("--explain", is_flag=True, help="List the tokens that moved the score most.")
@click.option("--top", "explain_top", type=click.IntRange(1), default=10, show_default=True,
              help="How many tokens --explain lists.")
@exit_code_option("Exit 0 for spam, 1 for ham, 2 for unsure (bogofilter's convention); with "
                  "several messages: 0 if any is spam, else 2 if any is unsure, else 1.")
@jobs_option("Worker processes for many messages (output stays in reading order).")
@server_option("Have the `spamnb serve` on this socket score the messages, with the model it "
               "keeps loaded; the output is the same.  No server there: exit 75.")
@timeout_option("the message is reported unsure, with the reason on stderr (with --server, the "
                "server's own --timeout applies)")
def classify(paths, model_path, fmt, spam_cutoff, ham_cutoff, max_size, explain, explain_top, exit_code,
             jobs, server_path, timeout):
    """Score messages: spam, ham or unsure, with P(spam) and log-odds.

    PATHS are message files, directories, Maildirs or mbox files (every
    message in them is scored); none or `-` reads one message from standard
    input.  A message that cannot be parsed is scored on whatever text could
    be read.

    \b
    Examples:
      spamnb classify message.eml
      spamnb classify --format jsonl ~/Maildir/new
      formail -s spamnb classify --exit-code - < inbox     # bogofilter-style status
      spamnb classify --explain --top 5 suspicious.eml
      spamnb classify --server "$XDG_RUNTIME_DIR/spamnb/serve.sock" - < message.eml
    """
    from ..classify import classify_paths
    from ..render import ScoreWriter, skipped_summary

    if server_path:
        check_jobs_with_server(jobs)
        model, cutoffs, jobs = _remote_scorer(server_path, model_path, spam_cutoff, ham_cutoff, explain,
                                              max_size), None, 1
    else:
        from ...model.opening import open_scorer
        from ...workers import default_jobs

        model = open_scorer(model_path_or_default(model_path))
        cutoffs = cutoffs_given(model.cutoffs, spam_cutoff, ham_cutoff)
        jobs = default_jobs() if jobs is None else jobs
    # get_text_stream: deprecated in click 8.5, removed in 9.0; typed `object` by click's __getattr__
    writer = ScoreWriter(click.get_text_stream("stdout"), fmt, explain_top if explain else 0)  # type: ignore[operator]
    outcome = classify_paths(model, paths, writer, cutoffs, max_size, explain, jobs,
                             timeout=None if server_path else timeout)
    for line in outcome.notes + outcome.problems + skipped_summary(outcome.skipped):
        say_on_stderr(line)
    sys.exit(outcome.exit_status(exit_code))


def _remote_scorer(server_path, model_path, spam_cutoff, ham_cutoff, explain, max_size):
    """classify --server: a scorer that sends each message to the server."""
    from click.core import ParameterSource

    from ..server import RemoteScorer
    from ...mail.sources import MAX_MESSAGE_BYTES

    check_model_with_server(bool(model_path) and click.get_current_context().get_parameter_source("model_path")
                            is ParameterSource.COMMANDLINE, CLASSIFY_SERVER_DOES)
    if explain:
        raise OptionError("--explain does not go with --server; classify locally to see the tokens")
    if max_size and max_size > MAX_MESSAGE_BYTES:
        raise OptionError(f"with --server, --max-size is at most {MAX_MESSAGE_BYTES:,} (the server's limit)")
    return RemoteScorer(server_path, spam_cutoff, ham_cutoff)
