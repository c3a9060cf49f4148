"""Where the model lives when no --model is given."""

from __future__ import annotations

import os

MODEL_FILENAME = "model.spamnb"


def default_model_path() -> str:
    """$SPAMNB_MODEL, else $XDG_DATA_HOME/spamnb/model.spamnb (~/.local/share/...)."""
    explicit = os.environ.get("SPAMNB_MODEL")
    if explicit:
        return os.path.expanduser(explicit)
    data_home = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    # Strings, not pathlib: a scoring process saves pathlib's 4 ms of imports.
    return os.path.join(data_home, "spamnb", MODEL_FILENAME)
