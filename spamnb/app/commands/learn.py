"""`spamnb learn`: messages added to (or taken from) a model, in place."""

from __future__ import annotations

import click

from ...errors import InputError, OptionError, say_on_stderr
from ..optiontable import (FORCE, FORGET, LEARN_SERVER_DOES, ON_ERROR, RELABEL, check_learn_flags,
                           check_model_with_server, label_paths, learn_flags_given)
from .options import (declared, label_options, model_option, model_path_or_default, quiet_option, server_option,
                      train_options_given, training_options)


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@label_options("Messages that are spam: files, folders, Maildirs or mbox (repeatable).",
               "Messages that are ham (repeatable).")
@declared(FORGET, "Remove these messages, learned before with this label.")
@declared(RELABEL, "Messages learned before with the other label move to this one.")
@declared(FORCE, "Learn duplicates again; forget what is not recorded.")
@declared(ON_ERROR, "Learn only messages the model now misclassifies or is unsure about.")
@click.option("--since-stamp", "stamp", type=click.Path(dir_okay=False), default=None,
              help="Read only files modified since FILE was last set, then set it to this run's start: "
                   "a cron job over a honeypot Maildir reads only what is new (created if missing).")
@click.option("--lock-wait", type=click.FloatRange(0), default=None, metavar="SECONDS",
              help="Give up (exit 75) when another writer holds the model longer.  [default: wait]")
@quiet_option("No summary.")
@server_option("Have the `spamnb serve` at SOCKET learn them into its model (as learn --model would, "
               "created if missing), so its next verdict counts them.  Not with --model, --since-stamp "
               "or training options.")
@model_option
@training_options
@click.pass_context
def learn(ctx, paths, spam_paths, ham_paths, forget, relabel, force, on_error, stamp, lock_wait, server_path,
          model_path, quiet,
          event_model, alpha, robinson, normalize, top_k, chunk, min_df, max_features, min_strength, retrain_margin,
          fold_variants, bigrams, headers_spec, stopwords_file, no_stopwords, keywords_file):
    """Teach a model: add, forget or relabel messages.

    `--spam` and `--ham` each take a path and may be repeated; with one of
    them, more PATHS may follow (`learn --spam a.eml b.eml Junk/`).
    When the model file does not exist yet, learn creates it, as bogofilter
    and sa-learn do: an empty model with the training options given here
    (the defaults otherwise), which scores every message unsure until it has
    seen both spam and ham.  The training options apply only then.

    Each message's digest is kept in the model, so learning a message twice
    is skipped, `--forget` removes exactly what was learned, and a message
    learned with the wrong label is moved with `--relabel`.  Several
    `learn` runs at once wait for each other (a lock beside the model);
    `classify` is never blocked and never sees a half-written model.

    With --server SOCKET the messages are read here and sent to a running
    `spamnb serve`, which learns them into its own model file, exactly as
    `learn --model` into that file would, and scores the next message with
    them: a mail flow's "this is spam" button or TREC-style online learning
    without loading the model per message (about what a `classify --server`
    costs).

    \b
    Examples:
      spamnb learn --spam ~/Mail/caught-late/       # spam that got through
      spamnb learn --spam Junk/cur/* --model new.spamnb   # creates new.spamnb
      spamnb learn --relabel --ham ~/Mail/false-positives/
      spamnb learn --forget --spam wrongly-taught.eml
      spamnb learn --on-error --spam Junk.mbox --ham Inbox.mbox
      spamnb learn --server "$XDG_RUNTIME_DIR/spamnb/serve.sock" --spam - < missed.eml
    """
    from ...learning.incremental import learn_file
    from ...learning.labelled import LearnFlags
    from ..render import learn_summary, skipped_summary

    spam_paths, ham_paths = label_paths(paths, spam_paths, ham_paths)
    check_learn_flags(forget, relabel, on_error)
    if server_path is not None:
        _learn_remote(ctx, server_path, model_path, spam_paths, ham_paths, stamp, quiet, learn_flags_given(ctx.params))
        return
    path = model_path_or_default(model_path, writes=True)
    given = _training_options_given(ctx)
    options = train_options_given(ctx.params)
    try:
        report, created = learn_file(path, spam_paths, ham_paths,
                                     LearnFlags(forget=forget, relabel=relabel, force=force, on_error=on_error),
                                     options=options, options_given=given, stamp=stamp, lock_wait=lock_wait)
    except ValueError as error:
        raise InputError(str(error)) from None
    for line in skipped_summary(report.reading.skipped):
        say_on_stderr(line)
    if not quiet:
        for line in learn_summary(report, forget, path, created):
            click.echo(line)


def _learn_remote(ctx, server_path, model_path, spam_paths, ham_paths, stamp, quiet, flags) -> None:
    """learn --server: the server learns into the model it serves."""
    from ..render import learn_summary, skipped_summary
    from ..server import learn_remote

    check_model_with_server(model_path is not None, LEARN_SERVER_DOES)
    if stamp is not None or _training_options_given(ctx):
        raise OptionError("--since-stamp and training options do not go with --server; learn with --model")
    report, model, created, skipped = learn_remote(server_path, spam_paths, ham_paths, flags)
    for line in skipped_summary(skipped):
        say_on_stderr(line)
    if not quiet:
        for line in learn_summary(report, "forget" in flags, model, created):
            click.echo(line)


TRAINING_PARAMETERS = ("event_model", "alpha", "robinson", "normalize", "top_k", "chunk", "min_df",
                       "max_features", "min_strength", "retrain_margin", "fold_variants", "bigrams", "headers_spec",
                       "stopwords_file", "no_stopwords", "keywords_file")


def _training_options_given(ctx) -> list[str]:
    """The training options set on the command line or in the environment."""
    from click.core import ParameterSource

    given = []
    for parameter in ctx.command.params:
        if parameter.name in TRAINING_PARAMETERS and ctx.get_parameter_source(parameter.name) in (
                ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT):
            given.append(parameter.opts[0])
    return given
