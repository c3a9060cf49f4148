"""spamnb: a naive Bayes spam filter for real mail, English and Chinese."""

__version__ = "0.1.0"

from .model import Model  # noqa: E402
from .options import TrainOptions  # noqa: E402
from .scoring import Cutoffs, Score  # noqa: E402
from .tokens import TokenizerOptions  # noqa: E402
from .training import train  # noqa: E402

__all__ = ["Model", "TrainOptions", "TokenizerOptions", "Cutoffs", "Score", "train", "__version__"]
