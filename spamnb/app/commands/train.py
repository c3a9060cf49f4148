"""`spamnb train`: a model from labelled mail."""

from __future__ import annotations

import click

from ...errors import OptionError, say_on_stderr
from .options import (cutoff_options, cutoffs_given, jobs_option, keep_what_was_taught, label_options, model_option,
                      model_path_or_default, quiet_option, replace_option, train_options_given, training_options)

TYPE_CHECKING = False  # mypy reads this name as true; the CLI's start stays free of numpy
if TYPE_CHECKING:
    from ...model.learned import LearnedDigests


@click.command()
@click.argument("source", required=False, type=click.Path())
@label_options("A spam source: mail folder, Maildir, mbox or message file (repeatable).",
               "A ham (good mail) source, like --spam (repeatable).")
@model_option
@training_options
@cutoff_options("P(spam) at or above which classify says spam; stored in the model, and kept as "
                "learn goes on.  Default: fitted on scores the model gave mail it had not seen yet "
                "(each stretch of the training mail judged by the mail before it), between 0.96 and 0.99 "
                "(0.99 with under 999 ham to fit on).",
                "P(spam) at or below which classify says ham; stored in the model.  Default: 0.2, "
                "at least 0.25 below the spam cutoff.")
@jobs_option("Worker processes that decode and count mail.")
@replace_option
@click.option("--scheduler", metavar="ADDRESS",
              help="Count on a Dask cluster instead (tcp://HOST:PORT of its scheduler; needs "
                   "spamnb[dask] here and on the workers).  The model is the same as a local run's.")
@click.option("--memory-budget", type=click.IntRange(1), default=16, show_default=True, metavar="MB",
              help="Megabytes of counts held in memory while training; past it, sorted runs spill to a "
                   "folder beside the model.  Changes the memory used, never the model.")
@quiet_option("No progress bar or summary.")
def train(source, spam_paths, ham_paths, model_path, event_model, alpha, robinson, normalize, top_k,
          chunk, min_df, max_features, min_strength, retrain_margin, fold_variants, bigrams, headers_spec,
          stopwords_file, no_stopwords, keywords_file,
          spam_cutoff, ham_cutoff, replace, jobs, scheduler, memory_budget, quiet):
    """Train a model from labelled mail and write it.

    SOURCE is a folder holding spam/ and ham/ (each a directory of message
    files, a Maildir or an mbox), or an index file of `spam|ham<TAB>path`
    lines (the TREC layout, paths relative to it); or name sources with
    --spam and --ham.  Files that cannot be
    read as mail are skipped and listed.  The model file is replaced
    atomically: an interrupted run leaves the old one intact.  An existing
    model that holds messages this training does not include (taught by
    `learn`, say) is left alone, exit 64, unless --replace is given.

    \b
    Examples:
      spamnb train ./mail
      spamnb train trec/index
      spamnb train --spam Junk.mbox --ham ~/Maildir --model my.spamnb
      spamnb train ./mail --headers subject,from --event-model bernoulli
      spamnb train ./mail --scheduler tcp://10.0.0.5:8786    # on a Dask cluster
    """
    from ...progress import phases
    from ...model.scoring import Cutoffs
    from ...workers import executor_for
    from ...learning.labelled import labelled_sources
    from ...model.labels import SPAM
    from ...learning.training import TrainHooks, train_file, expected_messages
    from ..render import skipped_summary

    if source:
        if spam_paths or ham_paths:
            raise OptionError("give either SOURCE or --spam/--ham, not both")
        sources = labelled_sources(source)
        spam_paths = [path for label, path in sources if label == SPAM]
        ham_paths = [path for label, path in sources if label != SPAM]
    if not spam_paths or not ham_paths:
        raise OptionError("need spam and ham: give SOURCE (a folder with spam/ and ham/, or an index file) "
                          "or --spam PATH and --ham PATH")
    options = train_options_given(click.get_current_context().params)
    cutoffs = None
    if spam_cutoff is not None or ham_cutoff is not None:
        cutoffs = cutoffs_given(Cutoffs(), spam_cutoff, ham_cutoff)
    if set(spam_paths) & set(ham_paths):
        raise OptionError("the same source is given as both spam and ham: "
                          + ", ".join(sorted(set(spam_paths) & set(ham_paths))))
    from ...model.modelstore import check_writable

    path = model_path_or_default(model_path, writes=True)
    check_writable(path)

    def refuse_losing_messages(learned: LearnedDigests) -> None:
        keep_what_was_taught(path, learned, replace, "this training", "`spamnb learn` the new mail into it")

    # The workers are forked before the display's drawing thread starts.
    with executor_for(jobs, scheduler) as (executor, workers), phases(quiet) as shown:
        if shown.drawn:
            shown.phase("counting messages")
            shown.phase("reading and counting", expected_messages([*spam_paths, *ham_paths]),
                        then="counting: workers finishing")
        report = train_file(path, spam_paths, ham_paths, options, cutoffs, executor, workers, memory_budget << 20,
                            TrainHooks(progress=shown.advance if shown.drawn else None, phases=shown,
                                       before_write=refuse_losing_messages))
    for line in skipped_summary(report.skipped):
        say_on_stderr(line)
    if not quiet:
        m = report.messages
        click.echo(f"trained on {m['spam']:,} spam + {m['ham']:,} ham messages "
                   f"({len(report.skipped):,} skipped), vocabulary {report.vocabulary:,} tokens, "
                   f"{report.seconds:.1f} s")
        click.echo(f"model written to {path}")
