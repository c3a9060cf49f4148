"""Commands on model files: inspect, export, import, merge and prune."""

from __future__ import annotations

import click

from ...errors import InputError, OptionError, say_on_stderr
from .options import format_option, keep_what_was_taught, model_option, model_path_or_default, replace_option


@click.command()
@click.argument("output", type=click.Path(dir_okay=False, allow_dash=True), default="-")
@model_option
def export(output, model_path):
    """Write the model's counts as plain text (to OUTPUT, default stdout).

    One token a line, in token order: token, spam count, ham count, spam
    messages, ham messages, last learned (YYYY-MM-DD); `#` lines carry the
    options and the learned-message digests.  Always UTF-8, and the same
    model always gives the same text.  `spamnb import` reads it back exactly.

    \b
    Examples:
      spamnb export backup.tsv
      spamnb export | sort -t$'\t' -k2,2nr | head     # most frequent spam tokens
    """
    from ...model.model import Model
    from ...model.upkeep import export as export_counts

    from ...files import write_text_output

    model = Model.load(model_path_or_default(model_path))
    write_text_output(output, lambda stream: export_counts(model, stream))


@click.command()
@click.argument("models", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="Where to write the merged model (may be one of MODELS).")
@replace_option
def merge(models, output, replace):
    """Combine models trained separately into one (counts are added).

    The result is what training on all their mail at once would give, count
    for count: train shards on several machines (or mailboxes) and merge.
    The models must have been trained with the same options.  Calibration
    and cutoffs come from the first model.  An existing OUTPUT that is not
    among MODELS and holds messages is left alone unless --replace is given.

    \b
    Examples:
      spamnb merge inbox.spamnb archive.spamnb -o all.spamnb
      spamnb merge shard-*.spamnb -o model.spamnb
    """
    from ...model.model import Model
    from ...model.modelstore import locked
    from ...progress import phases
    from ...model.upkeep import merge as merge_models

    if len(models) < 2:
        raise OptionError("merge needs at least two models")
    with phases() as shown, locked(output):
        loaded = []
        for number, path in enumerate(models, 1):
            shown.phase(f"reading model {number} of {len(models)}")
            loaded.append(Model.load(path))
        shown.phase("adding the counts")
        merged, report = merge_models(loaded)
        shown.phase("writing the model")
        keep_what_was_taught(output, merged.counts.learned, replace, "the merged model",
                              "name it among the models to merge")
        merged.save(output)
    if report.shared or report.relabelled:
        say_on_stderr(f"{report.shared:,} messages were learned by more than one model and are "
                      f"counted once per model; {report.relabelled:,} were learned with different labels")
    m = merged.messages
    click.echo(f"merged {len(models)} models: {int(m[1]):,} spam + {int(m[0]):,} ham messages, "
               f"vocabulary {merged.vocabulary_size:,} tokens; written to {output}")


@click.command(name="import")
@click.argument("source", type=click.Path(dir_okay=False, allow_dash=True, exists=True))
@model_option
@replace_option
def import_command(source, model_path, replace):
    """Build a model from a `spamnb export` file (weights are recomputed).

    An existing model that holds messages the export lacks is left alone
    unless --replace is given.

    \b
    Example:
      spamnb import backup.tsv --model restored.spamnb
    """
    from ...model.modelstore import locked
    from ...model.upkeep import import_

    if source == "-":
        stream = click.open_file(source, "r", encoding="utf-8", errors="surrogateescape")
    else:
        from ...files import open_regular

        try:  # a FIFO or device is refused, not waited on
            stream = open_regular(source, "r", encoding="utf-8", errors="surrogateescape")
        except OSError as error:
            raise InputError(f"cannot read {source}: {error.strerror or error}") from None
    with stream:
        model = import_(stream)
    path = model_path_or_default(model_path, writes=True)
    with locked(path):
        keep_what_was_taught(path, model.counts.learned, replace, "the export",
                              "import it into another --model and `spamnb merge` the two")
        model.save(path)
    click.echo(f"imported {model.vocabulary_size:,} tokens, {int(model.messages.sum()):,} messages; "
               f"model written to {path}")


@click.command()
@click.option("--min-count", type=click.IntRange(0), default=0,
              help="Drop tokens counted fewer than N times in all (2 drops hapaxes).")
@click.option("--older-than", "older_than", type=click.IntRange(0), default=None,
              help="Drop tokens last learned more than DAYS ago.")
@model_option
def prune(min_count, older_than, model_path):
    """Drop rare or stale tokens from a model, and say how many.

    Pruned tokens are gone from the model (their counts too); messages
    learned before can still be forgotten, minus the pruned tokens.  The
    model as it was is kept beside it as MODEL.bak (replacing an older one),
    and the summary names it.

    \b
    Examples:
      spamnb prune --min-count 2                  # hapaxes: the bulk of most vocabularies
      spamnb prune --older-than 365
    """
    from ...model.model import Model
    from ...model.modelstore import keep_backup, locked
    from ...progress import phases
    from ...model.upkeep import prune as prune_tokens

    if not min_count and older_than is None:
        raise OptionError("say what to prune: --min-count N and/or --older-than DAYS")
    path = model_path_or_default(model_path)
    with phases() as shown, locked(path):
        shown.phase("reading the model")
        model = Model.load(path)
        shown.phase("pruning")
        removed, kept = prune_tokens(model, min_count, older_than)
        if removed:
            shown.phase("writing the model")
            backup = keep_backup(path)
            model.save(path)
    click.echo(f"pruned {removed:,} tokens, kept {kept:,}"
               + (f"; model written to {path}, the model as it was kept as {backup}" if removed else ""))


@click.command()
@model_option
@click.option("--top", "top_n", type=click.IntRange(0), default=20, show_default=True,
              help="How many spam and ham keywords to list.")
@click.option("--word", "words", multiple=True,
              help="Look up a token (repeatable), e.g. --word free --word subject:发票.")
@format_option(["text", "json", "tsv"], "text for people; json or tsv for scripts.")
def inspect(model_path, top_n, words, fmt):
    """Show what a model learned: summary and strongest keywords.

    A token's weight is its log-odds λ = log P(token | spam) - log P(token | ham):
    positive pushes a message toward spam, negative toward ham.  --word reads
    its argument as the tokenizer reads text (case, width and variants
    folded: 發票 is 发票), and says why a token weighs nothing: a stop word,
    never seen, or the rule that set its weight to 0 (--min-strength,
    --keywords, --min-df, --max-features).

    \b
    Examples:
      spamnb inspect --top 30
      spamnb inspect --word viagra --word 发票 --word subject:free
      spamnb inspect --format json | jq '.spam[0]'
    """
    import json

    from .. import render
    from ...model.inspection import summary as model_summary, weight_note
    from ...model.model import Model
    from ...text.tokens import normalise

    path = model_path_or_default(model_path)
    model = Model.load(path)
    summary = dict(model_summary(model), model=path)
    if words:
        # As the tokenizer reads text: 發票 and 发票 are one token when the
        # model folds variants.
        tokens = [normalise(word) for word in words]
        if model.options.tokenizer.fold_variants:
            from ..._core import fold_word

            tokens = [fold_word(token) for token in tokens]
        rows = []
        for token in tokens:
            row = model.lookup(token)
            note = weight_note(model, token, row)
            row = row or {"token": token, "weight": None}
            if note:
                row["note"] = note  # why it weighs nothing: the rule that zeroed it
            rows.append(row)
        if model.options.keywords:
            from ...model.weights import on_keyword_list

            for row in rows:
                row["keyword"] = on_keyword_list(model.options, row["token"])
        spam_rows, ham_rows = rows, []
    else:
        spam_rows, ham_rows = model.top_tokens(top_n, spam=True), model.top_tokens(top_n, spam=False)
    if fmt == "json":
        data: dict[str, object] = {"summary": summary}
        data.update({"words": spam_rows} if words else {"spam": spam_rows, "ham": ham_rows})
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    if fmt == "tsv":
        click.echo("list\ttoken\tweight\tspam_count\tham_count\tspam_messages\tham_messages")
        for name, rows in (("word" if words else "spam", spam_rows), ("ham", ham_rows)):
            for row in rows:
                values = [row.get(k) for k in ("token", "weight", "spam_count", "ham_count",
                                               "spam_messages", "ham_messages")]
                click.echo("\t".join([name] + ["" if v is None else str(v) for v in values]))
        return
    render.inspect_text(summary, spam_rows, ham_rows, bool(words))
