"""The `spamnb` command line: a thin layer over the library API."""

from __future__ import annotations

import os
import signal
import sys


import click

from .. import __version__
from ..errors import (EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_MODEL_ERROR, EXIT_USAGE, FileError, InputError,
                     OptionError, SpamnbError, file_error, os_error_line, say_on_stderr)
from ..model.options import EVENT_MODELS, NORMALIZE, TrainOptions
from .paths import default_model_path, make_data_home_folder

DEFAULTS = TrainOptions()


class FloatRange(click.FloatRange):
    """click's FloatRange, less NaN (which passes every range comparison)."""

    def convert(self, value, param, ctx):
        value = super().convert(value, param, ctx)
        if value != value:
            self.fail("nan is not a number", param, ctx)
        return value


class FieldName(click.ParamType):
    """A header field name as RFC 5322 defines it: printable ASCII but the colon,
    no space, no line break (so no setting can inject header lines)."""

    name = "NAME"

    def convert(self, value, param, ctx):
        from ..mail.headerfield import field_name_problem

        problem = field_name_problem(value)
        if problem:
            self.fail(problem, param, ctx)
        return value


# Header fields mail carries (RFC 5322, 2045, 2369, 2919 and the common
# extensions): a --headers name close to one of these, or to a preset, but
# not one of them, is a typo (`contnet`, `subjcet`), refused before a
# training run tokenizes no header at all.  X- fields and names far from
# every known one are anyone's own fields and pass.
KNOWN_HEADER_FIELDS = frozenset("""
    subject from to cc bcc reply-to sender date message-id in-reply-to references received
    return-path delivered-to envelope-to mime-version content-type content-transfer-encoding
    content-disposition content-id content-description content-language user-agent organization
    importance priority precedence comments keywords errors-to list-id list-unsubscribe list-post
    list-help list-subscribe list-owner list-archive thread-topic thread-index authentication-results
    dkim-signature received-spf arc-seal resent-from resent-to resent-date resent-message-id
    disposition-notification-to auto-submitted""".split())


class HeaderSpec(click.ParamType):
    """--headers: all, content, none, or a comma list of field names (a
    trailing * matches a prefix); a name that looks like a misspelt preset or
    field is refused, with the likely meaning."""

    name = "SPEC"

    def convert(self, value, param, ctx):
        import difflib

        from ..mail.headerfield import field_name_problem
        from ..text.tokens import HEADER_PRESETS

        known = sorted(KNOWN_HEADER_FIELDS | set(HEADER_PRESETS))
        for item in str(value).split(","):
            name = item.strip().lower().rstrip(":")
            base = name[:-1] if name.endswith("*") else name
            if not name or name in HEADER_PRESETS or name == "*":
                continue
            problem = field_name_problem(base) if base else None
            if problem:
                self.fail(problem, param, ctx)
            if base in KNOWN_HEADER_FIELDS or base.startswith("x-") or name.endswith("*"):
                continue
            close = difflib.get_close_matches(base, known, n=1, cutoff=0.7)
            if close:
                self.fail(f"{item.strip()!r} is neither a preset (all, content, none) nor a header field "
                          f"spamnb knows; did you mean {close[0]!r}?", param, ctx)
        return value


# The most of a message read (--max-size): past this a message is attachments.
MAX_SIZE_LIMIT = 1 << 30

EXIT_STATUS_HELP = """\b
Exit status:
  0   done (classify: every message given was scored)
  3   model error: missing, unreadable, corrupt, foreign or too new; or a
      file cannot be written (missing folder, read-only file system, full
      disk, permission): the line names the path.  No folder is created
      but the default model's own
  4   input error: a path does not exist or nothing in it could be read;
      classify: input that is not mail (reported unsure, not scored)
  64  usage error: bad options or settings; or a model holding messages the
      new one lacks was left alone (give --replace)
  75  filter: the message was passed through untouched (EX_TEMPFAIL);
      classify --server: no server answered
  70  internal error (a bug: please report it)
  130 interrupted
\b
With classify --exit-code, the bogofilter convention instead:
  0 spam, 1 ham, 2 unsure (errors as above)."""

model_option = click.option(
    "--model", "-m", "model_path", type=click.Path(dir_okay=False), default=None,
    help="Model file.  Default: $SPAMNB_MODEL, else ~/.local/share/spamnb/model.spamnb.")


def _model_path(value: str | None, writes: bool = False) -> str:
    """The model given, or the default; `writes`: the command may create
    the model, so the default model's folder is made if missing."""
    path = value or str(default_model_path())
    if writes:
        make_data_home_folder(path)
    return path


def timeout_option(what: str):
    return click.option(
        "--timeout", type=FloatRange(0, 1e9), default=10.0, show_default=True, metavar="SECONDS",
        help=f"Deadline for scoring one message; past it {what}.  0: none.")


def _cutoffs(stored, spam_cutoff, ham_cutoff):
    """`stored` cutoffs with any given on the command line (or in settings) in
    their place.  One given alone moves the other only as far as it must: a
    spam cutoff under the stored ham cutoff takes the ham cutoff down with it."""
    from ..model.scoring import Cutoffs

    spam = stored.spam if spam_cutoff is None else spam_cutoff
    ham = stored.ham if ham_cutoff is None else ham_cutoff
    if ham_cutoff is None:
        ham = min(ham, spam)
    elif spam_cutoff is None:
        spam = max(spam, ham)
    try:
        return Cutoffs(spam=spam, ham=ham)
    except ValueError as error:
        raise OptionError(str(error)) from None


def _keep_what_was_taught(path: str, after: dict, replace: bool, what: str, hint: str) -> None:
    """Refuse to replace the model at `path` by one that lacks messages it holds
    (learned or trained into it before), unless --replace says to."""
    from ..model.model import messages_lost, messages_on_record

    lost = messages_lost(messages_on_record(path), after)
    if lost and not replace:
        raise OptionError(f"{path} holds {lost:,} message(s) that {what} does not include; they would be "
                          f"lost: give --replace to replace it all the same, or {hint}")


replace_option = click.option(
    "--replace", is_flag=True,
    help="Replace an existing model even when it holds messages (learned or trained before) that the new "
         "one lacks.  Without it, such a model is left alone and the command exits 64.")


# Options more than one command takes: each declared once, here; the help
# says what the option means to the command at hand.

def stacked(*options):
    """One decorator applying `options` in the order given (top to bottom in --help)."""
    def apply(function):
        for option in reversed(options):
            function = option(function)
        return function
    return apply


def label_options(spam_help: str, ham_help: str):
    """--spam and --ham: labelled mail sources, each repeatable."""
    return stacked(click.option("--spam", "spam_paths", multiple=True, type=click.Path(), help=spam_help),
                   click.option("--ham", "ham_paths", multiple=True, type=click.Path(), help=ham_help))


def cutoff_options(spam_help: str, ham_help: str):
    """--spam-cutoff and --ham-cutoff: P(spam) bounds of the verdicts (scoring.Cutoffs)."""
    return stacked(click.option("--spam-cutoff", type=FloatRange(0, 1), default=None, help=spam_help),
                   click.option("--ham-cutoff", type=FloatRange(0, 1), default=None, help=ham_help))


def jobs_option(help: str):
    return click.option("-j", "--jobs", type=click.IntRange(1), default=None, help=f"{help}  [default: every core]")


def max_size_option(help: str):
    return click.option("--max-size", type=click.IntRange(1024, MAX_SIZE_LIMIT), default=None,
                        help=f"{help}  [default: 10 MiB]")


def exit_code_option(help: str):
    return click.option("--exit-code", is_flag=True, help=help)


def quiet_option(help: str):
    return click.option("--quiet", "-q", is_flag=True, help=help)


def format_option(choices: list[str], help: str | None = None):
    return click.option("--format", "fmt", type=click.Choice(choices), default="text", show_default=True, help=help)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
             epilog=EXIT_STATUS_HELP)
@click.version_option(__version__, prog_name="spamnb")
@click.option("--config", "config_file", type=click.Path(dir_okay=False),
              help="TOML settings file.  Default: $SPAMNB_CONFIG, else ~/.config/spamnb/config.toml.")
@click.pass_context
def cli(ctx, config_file):
    """A naive Bayes spam filter for mail in English and Chinese.

    \b
    Typical use:
      spamnb train ./mail                # mail/spam/ and mail/ham/ inside
      spamnb classify message.eml        # spam / ham / unsure, with P(spam)
      spamnb classify - < message.eml    # from a pipe (procmail, Postfix...)
      spamnb inspect --top 20            # what the model learned

    Settings come from the command line, then SPAMNB_* environment
    variables, then the config file (see README: Configuration).
    """
    from . import config

    path = config.config_path(config_file)
    ctx.default_map = config.default_map(cli.commands, config.load(path), path=path,  # type: ignore[arg-type]  # only read
                                         invoked=ctx.invoked_subcommand)


# The options that shape a model, shared by `train`, `evaluate` and `learn`.
training_options = stacked(
    click.option("--event-model", type=click.Choice(EVENT_MODELS), default=DEFAULTS.event_model,
                 show_default=True,
                 help="multinomial: token counts; bernoulli: token presence, absent tokens "
                 "count too; mixed: counts to train, presence to score."),
    click.option("--alpha", type=FloatRange(0, 1e6, min_open=True), default=DEFAULTS.alpha,
                 show_default=True,
                 help="Additive smoothing (1 = Laplace, below 1 = Lidstone)."),
    click.option("--robinson", type=FloatRange(0), default=None,
                 help="Strength of Robinson's smoothing of rare tokens toward no information "
                 "(0: off)."),
    click.option("--normalize", type=click.Choice(NORMALIZE), default=DEFAULTS.normalize, show_default=True,
                 help="Length normalisation: divide the summed weights by n^γ (γ = 0, 1/2, 1)."),
    click.option("--top-k", type=click.IntRange(0), default=None,
                 help="Score only the K tokens with the strongest weights (Graham); 0: all."),
    click.option("--chunk", type=click.IntRange(0), default=None,
                 help="Score long mail in chunks of N tokens, keeping the spammiest; 0: whole."),
    click.option("--min-df", type=click.IntRange(0), default=None,
                 help="Give no weight to tokens seen in fewer than N training messages."),
    click.option("--max-features", type=click.IntRange(0), default=None,
                 help="Keep only the N tokens with the highest information gain; 0: all."),
    click.option("--min-strength", type=FloatRange(0, 1e6), default=DEFAULTS.min_strength,
                 show_default=True,
                 help="Give no weight to tokens whose log-odds weight |λ| is below X "
                 "(0: every token counts)."),
    click.option("--retrain-margin", type=FloatRange(0, 1e6), default=DEFAULTS.retrain_margin,
                 show_default=True,
                 help="After counting every message, count again those the model scores wrong "
                 "or within X of 0 in raw score (thick-threshold training; 0: off)."),
    click.option("--fold-variants/--no-fold-variants", default=None,
                 help="Fold Traditional Chinese and spam homoglyphs to Simplified."),
    click.option("--bigrams/--no-bigrams", default=None,
                 help="Also count pairs of adjacent words."),
    click.option("--headers", "headers_spec", type=HeaderSpec(), default="all", show_default=True,
                 help="Header fields to tokenize: all; content (Subject, From, To, Cc, Reply-To, "
                 "MIME-Version, Content-*: for collections whose routing headers give the label "
                 "away); none; or a comma list such as 'subject,from,x-mailer,content-*'."),
    click.option("--stopwords", "stopwords_file", type=click.Path(dir_okay=False),
                 help="File of stop words (one per line) replacing the built-in English and Chinese lists."),
    click.option("--no-stopwords", is_flag=True, help="Keep every word."),
    click.option("--keywords", "keywords_file", type=click.Path(dir_okay=False),
                 help="A hand-made keyword list (one word, pair or token a line): only these "
                 "tokens carry weight; the rest are counted but weigh 0."),
)


def _train_options(event_model, alpha, robinson, normalize, top_k, chunk, min_df, max_features,
                   min_strength, retrain_margin, fold_variants, bigrams, headers_spec, stopwords_file, no_stopwords,
                   keywords_file):
    """TrainOptions from the command line; unset options take the library's defaults."""
    from ..text import stopwords as stopword_lists
    from ..text.tokens import TokenizerOptions

    if no_stopwords and stopwords_file:
        raise OptionError("--stopwords and --no-stopwords do not go together")
    words = (frozenset() if no_stopwords else
             stopword_lists.read_file(stopwords_file) if stopwords_file else stopword_lists.builtin())
    try:
        defaults = TrainOptions()
        def given(value, default):
            return default if value is None else value

        tokenizer = TokenizerOptions(headers=TokenizerOptions.parse_headers(headers_spec), stopwords=words,
                                     bigrams=given(bigrams, defaults.tokenizer.bigrams),
                                     fold_variants=given(fold_variants, defaults.tokenizer.fold_variants))
        keywords: frozenset[str] = frozenset()
        if keywords_file:
            from ..text.keywords import read_file as read_keywords

            keywords = read_keywords(keywords_file, tokenizer)
        return TrainOptions(
            keywords=keywords,
            event_model=event_model, alpha=given(alpha, defaults.alpha), tokenizer=tokenizer,
            robinson=given(robinson, defaults.robinson), normalize=given(normalize, defaults.normalize),
            top_k=given(top_k, defaults.top_k), chunk=given(chunk, defaults.chunk),
            min_df=given(min_df, defaults.min_df), max_features=given(max_features, defaults.max_features),
            min_strength=given(min_strength, defaults.min_strength),
            retrain_margin=given(retrain_margin, defaults.retrain_margin))
    except ValueError as error:
        raise OptionError(str(error)) from None


@cli.command()
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
    from ..progress import phases
    from ..model.scoring import Cutoffs
    from ..workers import executor_for
    from ..learning.labelled import SPAM, labelled_sources
    from ..learning.training import train_file, expected_messages
    from .render import skipped_summary

    if source:
        if spam_paths or ham_paths:
            raise OptionError("give either SOURCE or --spam/--ham, not both")
        sources = labelled_sources(source)
        spam_paths = [path for label, path in sources if label == SPAM]
        ham_paths = [path for label, path in sources if label != SPAM]
    if not spam_paths or not ham_paths:
        raise OptionError("need spam and ham: give SOURCE (a folder with spam/ and ham/, or an index file) "
                          "or --spam PATH and --ham PATH")
    options = _train_options(event_model, alpha, robinson, normalize, top_k, chunk, min_df, max_features,
                             min_strength, retrain_margin, fold_variants, bigrams, headers_spec, stopwords_file,
                             no_stopwords, keywords_file)
    cutoffs = None
    if spam_cutoff is not None or ham_cutoff is not None:
        cutoffs = _cutoffs(Cutoffs(), spam_cutoff, ham_cutoff)
    if set(spam_paths) & set(ham_paths):
        raise OptionError("the same source is given as both spam and ham: "
                          + ", ".join(sorted(set(spam_paths) & set(ham_paths))))
    from ..model.modelfile import check_writable

    path = _model_path(model_path, writes=True)
    check_writable(path)
    def keep_what_was_taught(learned: dict) -> None:
        _keep_what_was_taught(path, learned, replace, "this training", "`spamnb learn` the new mail into it")

    # The workers are forked before the display's drawing thread starts.
    with executor_for(jobs, scheduler) as (executor, workers), phases(quiet) as shown:
        if shown.drawn:
            shown.phase("counting messages")
            shown.phase("reading and counting", expected_messages([*spam_paths, *ham_paths]),
                        then="counting: workers finishing")
        report = train_file(path, spam_paths, ham_paths, options, cutoffs, shown.advance if shown.drawn else None,
                            executor, workers, memory_budget << 20, phases=shown, before_write=keep_what_was_taught)
    for line in skipped_summary(report.skipped):
        say_on_stderr(line)
    if not quiet:
        m = report.messages
        click.echo(f"trained on {m['spam']:,} spam + {m['ham']:,} ham messages "
                   f"({len(report.skipped):,} skipped), vocabulary {report.vocabulary:,} tokens, "
                   f"{report.seconds:.1f} s")
        click.echo(f"model written to {path}")


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path())
@model_option
@format_option(["text", "tsv", "json", "jsonl"],
               "text for people; tsv, json (one array) or jsonl (one object a line) "
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
@click.option("--server", "server_path", type=click.Path(dir_okay=False), default=None,
              help="Have the `spamnb serve` on this socket score the messages, with the model it "
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
    from .classify import classify_paths
    from .render import ScoreWriter, skipped_summary

    if server_path:
        if jobs is not None and jobs > 1:
            raise OptionError("-j does not go with --server: the server scores the messages")
        model, cutoffs, jobs = _remote_scorer(server_path, model_path, spam_cutoff, ham_cutoff, explain,
                                              max_size), None, 1
    else:
        from ..model.scorer import Scorer
        from ..workers import default_jobs

        model = Scorer.open(_model_path(model_path))
        cutoffs = _cutoffs(model.cutoffs, spam_cutoff, ham_cutoff)
        jobs = default_jobs() if jobs is None else jobs
    # get_text_stream: deprecated in click 8.5, removed in 9.0 (issue 19); typed `object` by click's __getattr__
    writer = ScoreWriter(click.get_text_stream("stdout"), fmt, explain_top if explain else 0)  # type: ignore[operator]
    outcome = classify_paths(model, paths, writer, cutoffs, max_size, explain, jobs,
                             timeout=None if server_path else timeout)
    for line in outcome.notes + outcome.problems + skipped_summary(outcome.skipped):
        say_on_stderr(line)
    sys.exit(outcome.exit_status(exit_code))


def _remote_scorer(server_path, model_path, spam_cutoff, ham_cutoff, explain, max_size):
    """classify --server: a scorer that sends each message to the server."""
    from click.core import ParameterSource

    from .server import RemoteScorer
    from ..mail.sources import MAX_MESSAGE_BYTES

    if model_path and click.get_current_context().get_parameter_source("model_path") is ParameterSource.COMMANDLINE:
        raise OptionError("--model does not go with --server: the server scores with the model it was started with")
    if explain:
        raise OptionError("--explain does not go with --server; classify locally to see the tokens")
    if max_size and max_size > MAX_MESSAGE_BYTES:
        raise OptionError(f"with --server, --max-size is at most {MAX_MESSAGE_BYTES:,} (the server's limit)")
    return RemoteScorer(server_path, spam_cutoff, ham_cutoff)


@cli.command()
@click.option("--socket", "socket_path", type=click.Path(dir_okay=False), default=None,
              help="Where to listen.  Default: $XDG_RUNTIME_DIR/spamnb/serve.sock, else "
                   "/tmp/spamnb-UID/serve.sock.")
@model_option
@click.option("--spamd", "spamd_address", metavar="ADDRESS", default=None,
              help="Also speak SpamAssassin's spamd protocol (spamc, Exim's `spam =`, spamass-milter) "
                   "on ADDRESS: a socket path, or [HOST:]PORT for TCP (127.0.0.1 unless HOST is given).")
@click.option("--spamd-allow", "spamd_allow", metavar="NETWORK", multiple=True,
              help="Clients allowed on the spamd TCP port (repeatable, e.g. 192.0.2.0/24).  "
                   "[default: loopback only]")
@click.option("--spamd-learn", is_flag=True,
              help="Let spamd clients teach the model (`spamc -L spam|ham|forget`, TELL).")
@click.option("--workers", type=click.IntRange(1, 64), default=None,
              help="Processes that score messages side by side; more are started while all are busy, "
                   "up to twice as many.  [default: one per core, at least 2]")
@timeout_option("the client is answered unsure (with the reason) and the server goes on serving; "
                "a worker that overruns it by a second is killed and replaced")
def serve(socket_path, model_path, spamd_address, spamd_allow, spamd_learn, workers, timeout):
    """Keep the model loaded and score mail sent by `classify --server`.

    For mail that comes one message at a time (procmail, a filter script):
    each `spamnb classify` then skips loading the model.  The server runs in
    the foreground, logs to stderr, reloads the model by itself when the
    file changes (after `spamnb learn`, say) or on SIGHUP, and stops cleanly
    on SIGTERM or Ctrl-C, removing its socket.

    Only your own user is served: the socket is a Unix socket with mode
    0600, in a directory of yours that no one else can write to, and every
    connection from another uid is refused (and logged).

    A slow client never holds up another: messages are scored by worker
    processes, each under --timeout; a connection idle for 60 s is closed
    (the idlest one first when 256 are open), a request must arrive whole
    within 30 s, and buffered requests are capped in total.

    \b
    Examples:
      spamnb serve &
      spamnb classify --server "$XDG_RUNTIME_DIR/spamnb/serve.sock" - < message.eml
      kill -HUP %1                 # reload now;  kill %1: stop
    \b
    As a systemd user service, ~/.config/systemd/user/spamnb.service:
      [Service]
      ExecStart=%h/.local/bin/spamnb serve
      ExecReload=/bin/kill -HUP $MAINPID
      [Install]
      WantedBy=default.target
    then: systemctl --user enable --now spamnb
    \b
    In ~/.procmailrc (if the server is down, VERDICT is empty: mail is delivered as usual):
      VERDICT=`spamnb classify --server /run/user/1000/spamnb/serve.sock --format tsv | cut -f2 | tail -n 1`
    """
    from .daemon import serve as run_server
    from .server import default_socket_path

    if (spamd_allow or spamd_learn) and not spamd_address:
        raise OptionError("--spamd-allow and --spamd-learn go with --spamd ADDRESS")
    run_server(_model_path(model_path, writes=True), socket_path or default_socket_path(), timeout=timeout,
               workers=workers, spamd=spamd_address, spamd_allow=spamd_allow, spamd_learn=spamd_learn)


@cli.command()
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

    from . import render
    from .evaluation import cutoff_marks, load_corpus, run_protocol
    from ..progress import phases
    from ..learning.labelled import labelled_sources
    from ..learning.training import expected_messages
    from ..workers import executor_for

    if sum(x is not None and x is not False for x in (share, folds, online or None)) > 1:
        raise OptionError("choose one protocol: --split, --folds or --online")
    options = _train_options(event_model, alpha, robinson, normalize, top_k, chunk, min_df, max_features,
                             min_strength, retrain_margin, fold_variants, bigrams, headers_spec, stopwords_file,
                             no_stopwords, keywords_file)
    # Everything that can be checked is checked before the evaluation runs.
    if tune and online:
        raise OptionError("--tune needs calibrated scores: use --split or --folds, not --online")
    if model_path and not tune:
        raise OptionError("--model is where --tune stores its cutoffs; give --tune too")
    if plot_stem:
        from .plots import check_plot_format, plot_files

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
        from ..model.model import Model

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
        from ..model.calibration import tune_cutoffs
        from ..model.scoring import Cutoffs

        spam_cut, ham_cut = tune_cutoffs(scores["log_odds"], scores["labels"], max_fpr, max_fnr)
        result["tuned_cutoffs"] = {"spam": spam_cut, "ham": ham_cut, "max_fpr": max_fpr, "max_fnr": max_fnr}
        if model_path:
            from ..model.upkeep import store_cutoffs

            store_cutoffs(model_path, Cutoffs(spam=spam_cut, ham=ham_cut),
                          {"max_fpr": max_fpr, "max_fnr": max_fnr, "by": f"spamnb evaluate ({protocol})"},
                          options)
            result["tuned_cutoffs"]["stored_in"] = model_path
    marks = cutoff_marks(result, online)
    if plot_stem:
        from .plots import write_plots

        try:
            result["plots"] = write_plots(plot_stem, scores["labels"], scores["log_odds"], marks)
        except OSError as error:
            raise file_error(error.filename or plot_stem, error) from None
    if fmt == "json":
        click.echo(json.dumps(result, indent=2))
        return
    from .plots import terminal_histogram, terminal_roc

    click.echo(render.evaluation_text(result))
    click.echo()
    click.echo(terminal_roc(scores["labels"], scores["log_odds"], marks))
    click.echo()
    click.echo(terminal_histogram(scores["labels"], scores["log_odds"], marks))
    if plot_stem:
        click.echo()
        click.echo("pictures written: " + ", ".join(result["plots"]))


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path())
@label_options("Messages that are spam: files, folders, Maildirs or mbox (repeatable).",
               "Messages that are ham (repeatable).")
@click.option("--forget", is_flag=True, help="Remove these messages, learned before with this label.")
@click.option("--relabel", is_flag=True,
              help="Messages learned before with the other label move to this one.")
@click.option("--force", is_flag=True, help="Learn duplicates again; forget what is not recorded.")
@click.option("--on-error", is_flag=True,
              help="Learn only messages the model now misclassifies or is unsure about.")
@click.option("--since-stamp", "stamp", type=click.Path(dir_okay=False), default=None,
              help="Read only files modified since FILE was last set, then set it to this run's start: "
                   "a cron job over a honeypot Maildir reads only what is new (created if missing).")
@click.option("--lock-wait", type=click.FloatRange(0), default=None, metavar="SECONDS",
              help="Give up (exit 75) when another writer holds the model longer.  [default: wait]")
@quiet_option("No summary.")
@click.option("--server", "server_path", type=click.Path(dir_okay=False), default=None, metavar="SOCKET",
              help="Have the `spamnb serve` at SOCKET learn them into its model (as learn --model would, "
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
    from ..learning.incremental import learn_file
    from .render import learn_summary, skipped_summary

    spam_paths, ham_paths = _label_paths(paths, spam_paths, ham_paths)
    if not spam_paths and not ham_paths:
        raise OptionError("give messages with --spam PATH and/or --ham PATH")
    if forget and (relabel or on_error):
        raise OptionError("--forget does not go with --relabel or --on-error")
    if server_path is not None:
        _learn_remote(ctx, server_path, model_path, spam_paths, ham_paths, stamp, quiet,
                      tuple(flag for flag, given in (("forget", forget), ("relabel", relabel), ("force", force),
                                                     ("on-error", on_error)) if given))
        return
    path = _model_path(model_path, writes=True)
    given = _training_options_given(ctx)
    options = _train_options(event_model, alpha, robinson, normalize, top_k, chunk, min_df, max_features,
                             min_strength, retrain_margin, fold_variants, bigrams, headers_spec, stopwords_file,
                             no_stopwords, keywords_file)
    try:
        report, created = learn_file(path, spam_paths, ham_paths, forget=forget, relabel=relabel, force=force,
                                     on_error=on_error, options=options, options_given=given, stamp=stamp,
                                     lock_wait=lock_wait)
    except ValueError as error:
        raise InputError(str(error)) from None
    for line in skipped_summary(report.reading.skipped):
        say_on_stderr(line)
    if not quiet:
        for line in learn_summary(report, forget, path, created):
            click.echo(line)


def _learn_remote(ctx, server_path, model_path, spam_paths, ham_paths, stamp, quiet, flags) -> None:
    """learn --server: the server learns into the model it serves."""
    from .render import learn_summary, skipped_summary
    from .server import learn_remote

    if model_path is not None:
        raise OptionError("--model does not go with --server: the server learns into the model it serves")
    if stamp is not None or _training_options_given(ctx):
        raise OptionError("--since-stamp and training options do not go with --server; learn with --model")
    report, model, created, skipped = learn_remote(server_path, spam_paths, ham_paths, flags)
    for line in skipped_summary(skipped):
        say_on_stderr(line)
    if not quiet:
        for line in learn_summary(report, "forget" in flags, model, created):
            click.echo(line)


def _label_paths(paths, spam_paths, ham_paths):
    """Extra PATHS belong to the one label given (`learn --spam a.eml b.eml dir/`)."""
    spam_paths, ham_paths = list(spam_paths), list(ham_paths)
    if paths:
        if spam_paths and ham_paths:
            raise OptionError("with both --spam and --ham, give each path after its own --spam or --ham")
        if not spam_paths and not ham_paths:
            raise OptionError("say what the messages are: --spam PATH... or --ham PATH...")
        (spam_paths if spam_paths else ham_paths).extend(paths)
    return spam_paths, ham_paths


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


@cli.command(name="filter")
@model_option
@click.option("--header", "header_name", type=FieldName(), default="X-Spamnb-Status", show_default=True,
              help="Name of the status header added (an RFC 5322 field name).")
@click.option("--header-style", type=click.Choice(["spamnb", "spamassassin"]), default="spamnb",
              show_default=True,
              help="spamassassin: write X-Spam-Flag (YES/NO), X-Spam-Level and X-Spam-Status as "
                   "SpamAssassin does (score 5.0 = spamnb's spam cutoff), for rules written for it.")
@exit_code_option("Exit 0 spam, 1 ham, 2 unsure (bogofilter's convention).")
@cutoff_options("Default: the model's.", "Default: the model's.")
@max_size_option("Bytes of the message read and scored; the rest is copied through.")
@timeout_option("the message is delivered all the same, its header saying Unsure and why")
def filter_command(model_path, header_name, header_style, exit_code, spam_cutoff, ham_cutoff, max_size, timeout):
    """Copy one message from stdin to stdout with a status header added.

    The header reads `X-Spamnb-Status: Yes|No|Unsure, score=P, log-odds=L,
    model=NAME`, placed last in the header block with the message's own line
    ending; older copies of it are removed from the header; everything else,
    body included, is written back byte for byte.  On any failure (a bad
    option or setting, no model, a corrupt one, anything) the message is
    written back untouched and spamnb exits 75 (EX_TEMPFAIL), so the MTA
    retries and no mail is lost.  Only the message is ever written to
    stdout (this help goes to stderr unless stdin is a terminal).

    \b
    Examples:
      spamnb filter < message.eml > tagged.eml
      :0fw                                      # procmail
      | spamnb filter
    """
    from .filtering import deliver

    sys.exit(deliver(_model_path(model_path), header_name, exit_code, spam_cutoff, ham_cutoff, max_size, timeout,
                     header_style))


@cli.command()
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
    from ..model.model import Model
    from ..model.upkeep import export as export_counts

    from ..files import write_text_output

    model = Model.load(_model_path(model_path))
    write_text_output(output, lambda stream: export_counts(model, stream))


@cli.command()
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
    from ..model.model import Model
    from ..model.modelfile import locked
    from ..progress import phases
    from ..model.upkeep import merge as merge_models

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
        _keep_what_was_taught(output, merged.counts.learned, replace, "the merged model",
                              "name it among the models to merge")
        merged.save(output)
    if report.shared or report.relabelled:
        say_on_stderr(f"{report.shared:,} messages were learned by more than one model and are "
                      f"counted once per model; {report.relabelled:,} were learned with different labels")
    m = merged.messages
    click.echo(f"merged {len(models)} models: {int(m[1]):,} spam + {int(m[0]):,} ham messages, "
               f"vocabulary {merged.vocabulary_size:,} tokens; written to {output}")


@cli.command(name="import")
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
    from ..model.modelfile import locked
    from ..model.upkeep import import_

    if source == "-":
        stream = click.open_file(source, "r", encoding="utf-8", errors="surrogateescape")
    else:
        from ..files import open_regular

        try:  # a FIFO or device is refused, not waited on
            stream = open_regular(source, "r", encoding="utf-8", errors="surrogateescape")
        except OSError as error:
            raise InputError(f"cannot read {source}: {error.strerror or error}") from None
    with stream:
        model = import_(stream)
    path = _model_path(model_path, writes=True)
    with locked(path):
        _keep_what_was_taught(path, model.counts.learned, replace, "the export",
                              "import it into another --model and `spamnb merge` the two")
        model.save(path)
    click.echo(f"imported {model.vocabulary_size:,} tokens, {int(model.messages.sum()):,} messages; "
               f"model written to {path}")


@cli.command()
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
    from ..model.model import Model
    from ..model.modelfile import keep_backup, locked
    from ..progress import phases
    from ..model.upkeep import prune as prune_tokens

    if not min_count and older_than is None:
        raise OptionError("say what to prune: --min-count N and/or --older-than DAYS")
    path = _model_path(model_path)
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


@cli.command()
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

    from . import render
    from ..model.model import Model
    from ..text.tokens import normalise

    path = _model_path(model_path)
    model = Model.load(path)
    summary = dict(model.summary(), model=path)
    if words:
        # As the tokenizer reads text: 發票 and 发票 are one token when the
        # model folds variants.
        tokens = [normalise(word) for word in words]
        if model.options.tokenizer.fold_variants:
            from .._core import fold_word

            tokens = [fold_word(token) for token in tokens]
        rows = []
        for token in tokens:
            row = model.lookup(token)
            note = model.weight_note(token, row)
            row = row or {"token": token, "weight": None}
            if note:
                row["note"] = note  # why it weighs nothing: the rule that zeroed it
            rows.append(row)
        if model.options.keywords:
            for row in rows:
                row["keyword"] = row["token"] in model.options.keywords
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


@cli.command()
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion(shell):
    """Print the shell completion script for SHELL.

    \b
    Examples:
      spamnb completion bash > ~/.local/share/bash-completion/completions/spamnb
      spamnb completion zsh > "${fpath[1]}/_spamnb"
    """
    from click.shell_completion import get_completion_class

    script = get_completion_class(shell)(cli, {}, "spamnb", "_SPAMNB_COMPLETE")
    click.echo(script.source())


def main(argv=None) -> None:
    """Entry point: every failure is one line on stderr and a documented status."""
    # When the reader of our output goes away (`spamnb classify dir | head`),
    # end quietly as cat and grep do, rather than report a broken pipe.
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        cli.main(args=argv, prog_name="spamnb", standalone_mode=False)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.UsageError as error:
        error.show()
        sys.exit(EXIT_USAGE)
    except click.Abort:
        say_on_stderr("interrupted")
        sys.exit(EXIT_INTERRUPTED)
    except SpamnbError as error:
        say_on_stderr(error)
        sys.exit(error.exit_status)
    except KeyboardInterrupt:
        say_on_stderr("interrupted")
        sys.exit(EXIT_INTERRUPTED)
    except click.ClickException as error:
        error.show()
        sys.exit(EXIT_USAGE if error.exit_code == 2 else error.exit_code)
    except OSError as error:
        # A file spamnb writes, or its standard output, failed under it: a full
        # disk, a read-only file system, a folder gone.  One line, the path, 3.
        if os.environ.get("SPAMNB_DEBUG"):
            raise
        say_on_stderr(os_error_line(error))
        sys.exit(EXIT_MODEL_ERROR)
    except Exception as error:  # a bug: still one line, the traceback on request
        if os.environ.get("SPAMNB_DEBUG"):
            raise
        say_on_stderr(f"internal error: {type(error).__name__}: {error} "
                      "(set SPAMNB_DEBUG=1 for the traceback, and please report it)")
        sys.exit(EXIT_INTERNAL)


if __name__ == "__main__":
    main()
