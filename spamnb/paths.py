"""Where the model lives when no --model is given."""

from __future__ import annotations

import os
from pathlib import Path

MODEL_FILENAME = "model.spamnb"


def default_model_path() -> Path:
    """$SPAMNB_MODEL, else $XDG_DATA_HOME/spamnb/model.spamnb (~/.local/share/...)."""
    explicit = os.environ.get("SPAMNB_MODEL")
    if explicit:
        return Path(explicit).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(data_home) / "spamnb" / MODEL_FILENAME
