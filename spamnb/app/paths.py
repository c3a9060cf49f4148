"""Where the model lives when no --model is given."""

from __future__ import annotations

import os

MODEL_FILENAME = "model.spamnb"


def default_model_path() -> str:
    """$SPAMNB_MODEL, else $XDG_DATA_HOME/spamnb/model.spamnb (~/.local/share/...)."""
    explicit = os.environ.get("SPAMNB_MODEL")
    if explicit:
        return os.path.expanduser(explicit)
    return _data_home_model_path()


def _data_home_model_path() -> str:
    data_home = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    # Strings, not pathlib: a scoring process saves pathlib's 4 ms of imports.
    return os.path.join(data_home, "spamnb", MODEL_FILENAME)


def make_data_home_folder(path: str) -> None:
    """Create the folder of the model in the data home ($XDG_DATA_HOME/spamnb)
    when `path` is that model and the folder is missing, as the XDG base
    directory rules have it: the one folder spamnb makes.  A missing folder in
    a path someone gave (--model, SPAMNB_MODEL, a setting) is refused instead,
    where the model is written (modelstore.check_writable)."""
    if path != _data_home_model_path():
        return
    from ..errors import file_error

    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    except OSError as error:
        raise file_error(os.path.dirname(path), error, "create") from None
