"""`spamnb evaluate`: accuracy on labelled mail, by a split, folds, or online in delivery order."""

from __future__ import annotations

import os
import click

from ...errors import FileError, InputError, OptionError, file_error
from .options import FloatRange, format_option, jobs_option, model_option, train_options_given, training_options


@click.command()
@click.argument("source", type=click.Path(exists=True))
@click.option("--split", "share", type=FloatRange(0, 1, min_open=True, max_open=True), default=None,
              help="Train on this share of each class (in order), test on the rest.  [default: 0.7]")
@click.option("--folds", type=click.IntRange(2), default=None,
              help="K-fold cross-validation: each class cut into K contiguous blocks.")
@click.option("--online", is_flag=True,
              help="TREC immediate feedback: score each message in order, then learn it.")
@click.option("--shuffle", is_flag=True, help="Shuffle first (for corpora with no delivery order).")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed for --shuffle.")
@format_option(["text", "json"])
@click.option("--plot", "plot_stem", metavar="STEM",
              help="Also write the pictures as files: the ROC curve to STEM-roc.svg and the histogram of "
                   "scores to STEM-scores.svg (STEM.png: STEM-roc.png and STEM-scores.png, with matplotlib).")
@click.option("--tune", is_flag=True,
              help="Find cutoffs from the test messages' scores for which a new ham is called spam "
                   "with probability at most --max-fpr (k of n test ham above the spam cutoff, "
                   "(k+1)/(n+1) <= max-fpr); print them, and store them in --model if given.")
@click.option("--max-fpr", type=FloatRange(0, 1), default=0.001, show_default=True,
              help="Ham misclassification allowed by --tune.")
@click.option("--max-fnr", type=FloatRange(0, 1), default=0.005, show_default=True,
              help="Spam called ham allowed by --tune (sets the ham cutoff).")
@jobs_option("Worker processes that decode and tokenize mail.")
@model_option
@training_options
def evaluate(source, share, folds, online, shuffle, seed, fmt, plot_stem, tune, max_fpr, max_fnr, jobs, model_path,
             event_model, alpha, robinson, normalize, top_k, chunk, min_df, max_features, min_strength, retrain_margin,
             fold_variants,
             bigrams, headers_spec, stopwords_file, no_stopwords, keywords_file):
    """Measure accuracy on labelled mail the model is not trained on.

    SOURCE is a folder with spam/ and ham/, or an index file of
    `spam|ham<TAB>path` lines (the TREC layout, paths relative to it).
    Every protocol trains exactly as `train` does (calibration and tuned
    cutoffs included) and reports: accuracy, precision, recall, F1, ham and
    spam misclassification, unsure rate, ROC AUC, 1-ROCA %, lam %, spam
    missed at 0.1 % ham misclassification, and the confusion matrix.

    \b
    Examples:
      spamnb evaluate ./mail                         # 70/30 split, in order
      spamnb evaluate corpus/index --split 0.8 --shuffle --seed 7
      spamnb evaluate ./mail --folds 10 --format json
      spamnb evaluate trec/index --online            # immediate feedback, in index order
    """
    import json

    from .. import render
    from ..evaluation import cutoff_marks, load_corpus, run_protocol
    from ...progress import phases
    from ...learning.labelled import labelled_sources
    from ...learning.training import expected_messages
    from ...workers import executor_for

    if sum(x is not None and x is not False for x in (share, folds, online or None)) > 1:
        raise OptionError("choose one protocol: --split, --folds or --online")
    options = train_options_given(click.get_current_context().params)
    # Everything that can be checked is checked before the evaluation runs.
    if tune and online:
        raise OptionError("--tune needs calibrated scores: use --split or --folds, not --online")
    if model_path and not tune:
        raise OptionError("--model is where --tune stores its cutoffs; give --tune too")
    if plot_stem:
        from ..plots import check_plot_format, plot_files

        if plot_stem.lower().endswith((".gif", ".jpg", ".jpeg", ".pdf", ".eps", ".ps", ".webp")):
            raise OptionError("--plot writes SVG (STEM, or STEM.svg) or PNG (STEM.png, with matplotlib)")
        plot_format, plot_paths = plot_files(plot_stem)
        try:
            check_plot_format(plot_format)
        except ValueError as error:
            raise OptionError(f"--plot {plot_stem}: {error}") from None
        folder = os.path.dirname(os.path.abspath(plot_paths[0]))
        if not os.path.isdir(folder):
            raise FileError(f"cannot write {plot_paths[0]}: its folder {folder} does not exist")
        if not os.access(folder, os.W_OK):
            raise FileError(f"cannot write {plot_paths[0]}: its folder {folder} cannot be written to")
    if tune and model_path:  # before the evaluation's minutes; store_cutoffs checks again under the lock
        from ...model.model import Model

        if Model.load(model_path).options != options:
            raise OptionError(f"{model_path} was trained with other options than this evaluation; "
                              "evaluate with the same options so the cutoffs mean the same thing")
    sources = labelled_sources(source)
    # The workers are forked before the display's drawing thread starts.
    with executor_for(jobs, None) as (executor, workers), phases() as shown:
        try:
            total = None
            if shown.drawn:
                shown.phase("counting messages")
                total = expected_messages([path for _, path in sources])
            shown.phase("reading and tokenizing", total)
            corpus = load_corpus(sources, options, shown.advance, executor, workers)
            if executor is not None:
                # Tokenized: the workers' memory (each keeps its decoder's and
                # tokenizer's heap) goes before the models are trained.
                executor.shutdown()
            result, scores, protocol = run_protocol(corpus, options, share=share, folds=folds, online=online,
                                                    shuffle=shuffle, seed=seed, phases=shown)
        except ValueError as error:
            raise InputError(str(error)) from None
    result["protocol"] = protocol
    result["skipped"] = len(corpus.report.skipped)
    if tune:
        from ...model.calibration import tune_cutoffs
        from ...model.scoring import Cutoffs

        spam_cut, ham_cut = tune_cutoffs(scores["log_odds"], scores["labels"], max_fpr, max_fnr)
        result["tuned_cutoffs"] = {"spam": spam_cut, "ham": ham_cut, "max_fpr": max_fpr, "max_fnr": max_fnr}
        if model_path:
            from ...model.upkeep import store_cutoffs

            store_cutoffs(model_path, Cutoffs(spam=spam_cut, ham=ham_cut),
                          {"max_fpr": max_fpr, "max_fnr": max_fnr, "by": f"spamnb evaluate ({protocol})"},
                          options)
            result["tuned_cutoffs"]["stored_in"] = model_path
    marks = cutoff_marks(result, online)
    if plot_stem:
        from ..plots import write_plots

        try:
            result["plots"] = write_plots(plot_stem, scores["labels"], scores["log_odds"], marks)
        except OSError as error:
            raise file_error(error.filename or plot_stem, error) from None
    if fmt == "json":
        click.echo(json.dumps(result, indent=2))
        return
    from ..plots import terminal_histogram, terminal_roc

    click.echo(render.evaluation_text(result))
    click.echo()
    click.echo(terminal_roc(scores["labels"], scores["log_odds"], marks))
    click.echo()
    click.echo(terminal_histogram(scores["labels"], scores["log_odds"], marks))
    if plot_stem:
        click.echo()
        click.echo("pictures written: " + ", ".join(result["plots"]))
