"""The command line's shared pieces: parameter types, and each option more
than one command takes, declared once here (the help says what the option
means to the command at hand); and the reading of options into the library's
records (TrainOptions, Cutoffs)."""

from __future__ import annotations

import click

from ...errors import OptionError
from ...model.options import EVENT_MODELS, NORMALIZE, TrainOptions
from ..optiontable import EXIT_CODE, FORMAT, HAM, JOBS, MAX_SECONDS, MODEL, QUIET, SERVER, SPAM, TIMEOUT, Option
from ..paths import default_model_path, make_data_home_folder

TYPE_CHECKING = False  # mypy reads this name as true; the CLI's start stays free of numpy
if TYPE_CHECKING:
    from ...model.learned import LearnedDigests


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
        from ...mail.headerfield import field_name_problem

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

        from ...mail.headerfield import field_name_problem
        from ...text.tokens import HEADER_PRESETS

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


def declared(option: Option, help: str | None = None, **settings):
    """The click option of one of optiontable's declarations."""
    if option.kind == "flag":
        return click.option(*option.flags, option.dest, is_flag=True, help=help, **settings)
    kinds = {"file": click.Path(dir_okay=False), "path": click.Path(), "choice": click.Choice(option.choices),
             "count": click.IntRange(1), "seconds": FloatRange(0, MAX_SECONDS)}
    return click.option(*option.flags, option.dest, type=kinds[option.kind], default=option.default,
                        multiple=option.multiple, metavar=option.metavar, help=help, **settings)


model_option = declared(MODEL, "Model file.  Default: $SPAMNB_MODEL, else ~/.local/share/spamnb/model.spamnb.")


def model_path_or_default(value: str | None, writes: bool = False) -> str:
    """The model given, or the default; `writes`: the command may create
    the model, so the default model's folder is made if missing."""
    path = value or str(default_model_path())
    if writes:
        make_data_home_folder(path)
    return path


def timeout_option(what: str):
    return declared(TIMEOUT, f"Deadline for scoring one message; past it {what}.  0: none.", show_default=True)


def cutoffs_given(stored, spam_cutoff, ham_cutoff):
    """`stored` cutoffs with any given on the command line (or in settings)
    in their place (scoring.Cutoffs.with_given)."""
    try:
        return stored.with_given(spam_cutoff, ham_cutoff)
    except ValueError as error:
        raise OptionError(str(error)) from None


def keep_what_was_taught(path: str, after: LearnedDigests, replace: bool, what: str, hint: str) -> None:
    """Refuse to replace the model at `path` by one that lacks messages it holds
    (learned or trained into it before), unless --replace says to."""
    from ...model.learned import messages_lost, messages_on_record

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
    return stacked(declared(SPAM, spam_help), declared(HAM, ham_help))


def cutoff_options(spam_help: str, ham_help: str):
    """--spam-cutoff and --ham-cutoff: P(spam) bounds of the verdicts (scoring.Cutoffs)."""
    return stacked(click.option("--spam-cutoff", type=FloatRange(0, 1), default=None, help=spam_help),
                   click.option("--ham-cutoff", type=FloatRange(0, 1), default=None, help=ham_help))


def jobs_option(help: str):
    return declared(JOBS, f"{help}  [default: every core]")


def max_size_option(help: str):
    return click.option("--max-size", type=click.IntRange(1024, MAX_SIZE_LIMIT), default=None,
                        help=f"{help}  [default: 10 MiB]")


def exit_code_option(help: str):
    return declared(EXIT_CODE, help)


def quiet_option(help: str):
    return declared(QUIET, help)


def server_option(help: str):
    return declared(SERVER, help)


def score_format_option(help: str):
    return declared(FORMAT, help, show_default=True)


def format_option(choices: list[str], help: str | None = None):
    return click.option("--format", "fmt", type=click.Choice(choices), default="text", show_default=True, help=help)


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


def train_options_given(given: dict) -> TrainOptions:
    """TrainOptions from the training options on the command line (`given`:
    click's parsed parameters of the command, by name); an option not set
    takes the library's default."""
    from ...text import stopwords as stopword_lists
    from ...text.tokens import TokenizerOptions

    if given["no_stopwords"] and given["stopwords_file"]:
        raise OptionError("--stopwords and --no-stopwords do not go together")
    words = (frozenset() if given["no_stopwords"] else stopword_lists.read_file(given["stopwords_file"])
             if given["stopwords_file"] else stopword_lists.builtin())
    defaults = TrainOptions()

    def value(name: str, default):
        return default if given[name] is None else given[name]

    try:
        tokenizer = TokenizerOptions(headers=TokenizerOptions.parse_headers(given["headers_spec"]), stopwords=words,
                                     bigrams=value("bigrams", defaults.tokenizer.bigrams),
                                     fold_variants=value("fold_variants", defaults.tokenizer.fold_variants))
        keywords: frozenset[str] = frozenset()
        if given["keywords_file"]:
            from ...text.keywords import read_file as read_keywords

            keywords = read_keywords(given["keywords_file"], tokenizer)
        return TrainOptions(
            keywords=keywords, tokenizer=tokenizer, event_model=given["event_model"],
            **{name: value(name, getattr(defaults, name))
               for name in ("alpha", "robinson", "normalize", "top_k", "chunk", "min_df", "max_features",
                            "min_strength", "retrain_margin")})
    except ValueError as error:
        raise OptionError(str(error)) from None
