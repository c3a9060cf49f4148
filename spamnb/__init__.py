"""spamnb: a naive Bayes spam filter for real mail, English and Chinese."""

__version__ = "0.1.0"

__all__ = ["Model", "Scorer", "TrainOptions", "TokenizerOptions", "Cutoffs", "Score", "train", "__version__"]

# Where each public name lives.  They are imported on first use (PEP 562), so
# `import spamnb` costs nothing: scoring one message in a fresh process must
# not pay for numpy, which only training and inspection need.
_EXPORTS = {"Model": "model.model", "Scorer": "model.scorer", "TrainOptions": "model.options",
            "TokenizerOptions": "text.tokens", "Cutoffs": "model.scoring", "Score": "model.scoring",
            "train": "learning.training"}


def __getattr__(name: str):
    if name in _EXPORTS:
        import importlib

        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'spamnb' has no attribute {name!r}")
