"""Settings from a TOML file and SPAMNB_* environment variables.

Precedence, strongest first: the command line, environment variables, the
config file, built-in defaults.  The file (`--config FILE`, else
$SPAMNB_CONFIG, else $XDG_CONFIG_HOME/spamnb/config.toml, i.e.
~/.config/spamnb/config.toml) holds top-level keys, which apply to every
command that has such an option, and `[command]` tables for one command:

    model = "~/mail/spamnb.model"
    spam-cutoff = 0.995

    [filter]
    header = "X-Spam-Verdict"

    [train]
    headers = "content,x-mailer"

Keys are option names without the dashes.  An environment variable
SPAMNB_<KEY> (dashes as underscores, e.g. SPAMNB_SPAM_CUTOFF) sets a key for
every command.  Everything becomes click's default_map, so `--help` shows no
surprise and the command line always wins.

Settings are written by someone other than the command line's user at the
moment (a profile, an MTA's environment), so each value is checked here
against its option's type before click sees it: a number is a TOML number
(`true` is not 1.0, `1e30` is not a byte count), a name a string, a list
only where an option takes several values.  A bad value is one line, exit
64, naming where it came from: the file and key, or the variable.
"""

from __future__ import annotations

import math
import os

from ..errors import OptionError

# Option names whose Python parameter is named differently.
_PARAMETER = {"model": "model_path", "header": "header_name", "headers": "headers_spec",
              "format": "fmt", "stopwords": "stopwords_file", "top": "explain_top"}
_ENV_KEYS = ("model", "spam-cutoff", "ham-cutoff", "header", "headers", "event-model", "alpha", "format")
# A settings file is a few lines; this is far past any real one, and keeps
# a path such as /dev/zero or a huge file from costing memory.
MAX_CONFIG_BYTES = 1024 * 1024


# Strings and os.path, and tomllib only when there is a file to read: the
# entry point's fast path asks `in_effect()` at every start (fastpath.py).


def _environment_name(key: str) -> str:
    return "SPAMNB_" + key.upper().replace("-", "_")


def config_path(explicit: str | None) -> str | None:
    if explicit:
        return os.path.expanduser(explicit)
    if os.environ.get("SPAMNB_CONFIG"):
        return os.path.expanduser(os.environ["SPAMNB_CONFIG"])
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    path = os.path.join(base, "spamnb", "config.toml")
    # Anything there is the settings file: a FIFO or directory in its place
    # is reported (load), not skipped in silence.
    return path if os.path.lexists(path) else None


def in_effect(environ=os.environ) -> bool:
    """Whether settings beyond the command line would apply: a config file, or
    a SPAMNB_* variable other than SPAMNB_MODEL (which is read where the
    model path is resolved, by every entry point alike)."""
    return config_path(None) is not None or any(
        _environment_name(key) in environ for key in _ENV_KEYS if key != "model")


def load(path: str | None) -> dict:
    """The settings file's tables; a regular file of at most MAX_CONFIG_BYTES,
    opened without blocking (a FIFO there is refused, not waited on)."""
    if path is None:
        return {}
    import tomllib

    from ..files import NotRegular, read_regular

    try:
        text = read_regular(path, MAX_CONFIG_BYTES).decode("utf-8")
        return tomllib.loads(text)
    except FileNotFoundError:
        raise OptionError(f"no config file at {path}") from None
    except NotRegular as error:
        raise OptionError(f"config file {path}: {error}") from None
    except UnicodeDecodeError:
        raise OptionError(f"config file {path}: not UTF-8 text") from None
    except RecursionError:  # tomllib reads nested arrays and tables by recursion, with no bound of its own
        raise OptionError(f"config file {path}: arrays or tables nested too deeply") from None
    except (OSError, ValueError, tomllib.TOMLDecodeError) as error:  # ValueError: too large
        raise OptionError(f"config file {path}: {getattr(error, 'strerror', None) or error}") from None


class _Source:
    """Where a setting came from, as an error message names it."""

    def __init__(self, text: str, from_environment: bool = False) -> None:
        self.text = text
        self.from_environment = from_environment

    def __str__(self) -> str:
        return self.text


def default_map(commands: dict, settings: dict, environ=os.environ, path: str | None = None,
                invoked: str | None = None) -> dict:
    """click's default_map for each command from the file's settings and the
    environment; the values for the `invoked` command are checked against its
    options' types (every command's would be, but only one runs)."""
    where = f"config file {path}" if path else "config"
    common: dict = {}
    sources: dict = {}
    for key, value in settings.items():
        if isinstance(value, dict):
            if key not in commands:
                raise OptionError(f"{where}: [{key}] is not a spamnb command")
            continue
        common[key] = value
        sources[key] = _Source(f"{where}: {key}")
    for key in _ENV_KEYS:
        value = environ.get(_environment_name(key))
        if value is not None and key != "model":  # SPAMNB_MODEL is read where the path is resolved
            common[key] = value
            sources[key] = _Source(f"${_environment_name(key)}", from_environment=True)
    every_option = {p.name for command in commands.values() for p in command.params if _is_option(p)}
    for key in settings:
        if not isinstance(settings[key], dict) and _PARAMETER.get(key, key.replace("-", "_")) not in every_option:
            raise OptionError(f"{where}: no setting {key!r} (keys are option names without the dashes)")
    result: dict = {}
    for name, command in commands.items():
        options = {p.name: p for p in command.params if _is_option(p)}
        table = dict(common)
        table_sources = dict(sources)
        for key, value in settings.get(name, {}).items():
            table[key] = value
            table_sources[key] = _Source(f"{where}: [{name}] {key}")
        entry = {}
        for key, value in table.items():
            parameter = _PARAMETER.get(key, key.replace("-", "_"))
            if parameter in options:
                try:
                    checked = check_value(options[parameter], value, table_sources[key])
                except OptionError:
                    # Every command checks what would reach it, so a header
                    # name with a line break is refused by any command; only
                    # choices differ between commands (`format`), and those
                    # are checked for the command that runs.
                    if name == invoked or not _is_choice(options[parameter]):
                        raise
                    checked = value
                if name == invoked:
                    value = checked
                if parameter == "model_path" and isinstance(value, str):
                    value = os.path.expanduser(value)
                entry[parameter] = value
            elif key in settings.get(name, {}):
                raise OptionError(f"{where}: [{name}] has no setting {key!r}")
        if entry:
            result[name] = entry
    return result


def _is_choice(option) -> bool:
    import click

    return isinstance(option.type, click.Choice)


def _is_option(parameter) -> bool:
    return getattr(parameter, "param_type_name", "") == "option"


def check_value(option, value, source):
    """`value` for click `option`, of the type the option takes; an OptionError
    naming `source` otherwise."""
    if option.multiple or option.nargs != 1:
        if not isinstance(value, list):
            raise OptionError(f"{source}: give a list of values, such as [\"a\", \"b\"]")
        return [_check_scalar(option, item, source) for item in value]
    return _check_scalar(option, value, source)


def _check_scalar(option, value, source):
    import click

    kind = option.type
    if isinstance(value, (list, dict)):
        raise OptionError(f"{source}: {'a table' if isinstance(value, dict) else 'a list'} where one value goes")
    if isinstance(kind, click.types.BoolParamType):
        if source.from_environment and isinstance(value, str):
            return kind.convert(value, option, None)
        if not isinstance(value, bool):
            raise OptionError(f"{source}: {value!r} is not true or false")
        return value
    if isinstance(kind, (click.types.FloatParamType, click.types.IntParamType)):
        whole = isinstance(kind, click.types.IntParamType)
        if source.from_environment and isinstance(value, str):
            try:
                value = int(value) if whole else float(value)
            except ValueError:
                raise OptionError(f"{source}: {value!r} is not {'a whole number' if whole else 'a number'}") from None
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or (whole and isinstance(value, float)):
            raise OptionError(f"{source}: {value!r} is not {'a whole number' if whole else 'a number'}")
        if not math.isfinite(value):
            raise OptionError(f"{source}: {value!r} is not a finite number")
    elif not isinstance(value, str):
        raise OptionError(f"{source}: {value!r} is not a string")
    elif "\0" in value:
        raise OptionError(f"{source}: holds a NUL character")
    try:
        return kind.convert(value, option, None)
    except click.BadParameter as error:
        raise OptionError(f"{source}: {error.message}") from None
