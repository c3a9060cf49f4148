"""The `spamnb` command line: a thin layer over the library API.

The group and the entry point are here; each command is a module of
spamnb.app.commands, the options they share are spamnb.app.commands.options."""

from __future__ import annotations

import signal
import sys

import click

from .. import __version__
from ..errors import EXIT_INTERRUPTED, EXIT_USAGE, reported, say_on_stderr
from .commands.classify import classify
from .commands.completion import completion
from .commands.evaluate import evaluate
from .commands.filter import filter_command
from .commands.learn import learn
from .commands.modelfiles import export, import_command, inspect, merge, prune
from .commands.serve import serve
from .commands.train import train


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


for command in (train, classify, learn, filter_command, serve, evaluate, inspect, export, import_command, merge,
                prune, completion):
    cli.add_command(command)


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
    except click.ClickException as error:
        error.show()
        sys.exit(EXIT_USAGE if error.exit_code == 2 else error.exit_code)
    except (Exception, KeyboardInterrupt) as error:  # one line and a documented status (errors.reported)
        sys.exit(reported(error))
