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
"""

from __future__ import annotations

import os

from .errors import OptionError

# Option names whose Python parameter is named differently.
_PARAMETER = {"model": "model_path", "header": "header_name", "headers": "headers_spec",
              "format": "fmt", "stopwords": "stopwords_file", "top": "explain_top"}
_ENV_KEYS = ("model", "spam-cutoff", "ham-cutoff", "header", "headers", "event-model", "alpha", "format")


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
    return path if os.path.isfile(path) else None


def in_effect(environ=os.environ) -> bool:
    """Whether settings beyond the command line would apply: a config file, or
    a SPAMNB_* variable other than SPAMNB_MODEL (which is read where the
    model path is resolved, by every entry point alike)."""
    return config_path(None) is not None or any(
        _environment_name(key) in environ for key in _ENV_KEYS if key != "model")


def load(path: str | None) -> dict:
    if path is None:
        return {}
    import tomllib

    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise OptionError(f"no config file at {path}") from None
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise OptionError(f"config file {path}: {error}") from None


def default_map(commands: dict, settings: dict, environ=os.environ) -> dict:
    """click's default_map for each command from the file's settings and the environment."""
    common = {key: value for key, value in settings.items() if not isinstance(value, dict)}
    for key in _ENV_KEYS:
        value = environ.get(_environment_name(key))
        if value is not None and key != "model":  # SPAMNB_MODEL is read where the path is resolved
            common[key] = value
    result: dict = {}
    for section in settings:
        if isinstance(settings[section], dict) and section not in commands:
            raise OptionError(f"config: [{section}] is not a spamnb command")
    for name, command in commands.items():
        parameters = {p.name for p in command.params}
        table = {**common, **settings.get(name, {})}
        entry = {}
        for key, value in table.items():
            parameter = _PARAMETER.get(key, key.replace("-", "_"))
            if parameter in parameters:
                entry[parameter] = os.path.expanduser(value) if parameter == "model_path" else value
            elif key in settings.get(name, {}):
                raise OptionError(f"config: [{name}] has no setting {key!r}")
        if entry:
            result[name] = entry
    return result
