"""A model opened for scoring only.

`classify`, `filter` and `serve` need the options, the cutoffs and the
weights of the tokens a message holds: nothing else.  A Scorer maps the model
file and reads just that, with the standard library alone (no numpy), so a
fresh process scores a message in milliseconds whatever the model's size.
`Model` (model.py) is a Scorer that also holds the counts, for training,
learning and inspection.
"""

from __future__ import annotations

import os

from .errors import ModelError
from .message import decode_message
from .modelfile import read_model
from .options import TrainOptions, presence_scoring
from .scoring import Cutoffs, Score, ScoringRule, WeightTable, score_tokens
from .tokens import TOKENIZER_VERSION, TokenizerOptions, message_tokens

SCORING_SECTIONS = ("keys", "weights", "block_first", "block_crcs")


def options_to_meta(options: TrainOptions) -> dict:
    """The options as a model file's metadata and an export's settings line store them."""
    return {"event_model": options.event_model, "alpha": options.alpha,
            "tokenizer": options.tokenizer.to_dict(), "robinson": options.robinson,
            "normalize": options.normalize, "top_k": options.top_k, "chunk": options.chunk,
            "min_df": options.min_df, "max_features": options.max_features,
            "min_strength": options.min_strength}


def options_from_meta(meta: dict) -> TrainOptions:
    return TrainOptions(
        event_model=meta["event_model"], alpha=float(meta["alpha"]),
        tokenizer=TokenizerOptions.from_dict(meta["tokenizer"]),
        robinson=float(meta.get("robinson", 0.0)), normalize=meta.get("normalize", "none"),
        top_k=int(meta.get("top_k", 0)), chunk=int(meta.get("chunk", 0)),
        min_df=int(meta.get("min_df", 0)), max_features=int(meta.get("max_features", 0)),
        # Models written before the option existed weighed every token.
        min_strength=float(meta.get("min_strength", 0.0)))


def check_tokenizer_version(meta: dict) -> None:
    version = meta.get("tokenizer_version")
    if version != TOKENIZER_VERSION:
        raise ValueError(f"it was made by tokenizer version {version}, this spamnb tokenizes "
                         f"as version {TOKENIZER_VERSION}")


class Scorer:
    """Options, cutoffs, calibration and a weight table: all scoring needs."""

    def __init__(self, options: TrainOptions, cutoffs: Cutoffs | None = None,
                 meta: dict | None = None) -> None:
        self.options = options
        self.cutoffs = cutoffs or Cutoffs()
        self.meta = dict(meta or {})
        self.bias: float = float(self.meta.get("bias", 0.0))
        self._table: WeightTable | None = None

    @classmethod
    def open(cls, path: str | os.PathLike) -> "Scorer":
        """Map a model file for scoring; raises ModelError for anything amiss."""
        model_file = read_model(path, verify=False)
        meta = model_file.meta
        try:
            scorer = cls(options_from_meta(meta), Cutoffs(**meta["cutoffs"]), meta)
            check_tokenizer_version(meta)
            for name in ("block_first", "block_crcs"):  # small: checked whole
                model_file.check_section(name)
            scorer._table = WeightTable(*(model_file.stored(name) for name in SCORING_SECTIONS),
                                        block_size=int(meta["block_size"]), where=f"model {path}")
        except (KeyError, TypeError, ValueError, IndexError) as error:
            raise ModelError(f"model {path} is not usable ({error}); retrain it") from None
        return scorer

    @property
    def table(self) -> WeightTable:
        assert self._table is not None
        return self._table

    @property
    def rule(self) -> ScoringRule:
        """How contributions combine: the options, plus the calibration if fitted."""
        calibration = self.meta.get("calibration")
        scale, offset = (calibration["scale"], calibration["offset"]) if calibration else (1.0, self.bias)
        return ScoringRule(self.options.normalize, self.options.top_k, scale, offset, self.options.chunk)

    def tokens(self, raw: bytes) -> list[str]:
        tokenizer = self.options.tokenizer
        return message_tokens(decode_message(raw, tokenizer.wants_header), tokenizer)

    def score_tokens(self, tokens: list[str], explain: bool = False,
                     cutoffs: Cutoffs | None = None) -> Score:
        return score_tokens(tokens, self.table, self.rule, presence_scoring(self.options.event_model),
                            cutoffs or self.cutoffs, explain)

    def score_message(self, raw: bytes, explain: bool = False,
                      cutoffs: Cutoffs | None = None) -> Score:
        """Score one raw message (bytes as read from a file or stdin)."""
        return self.score_tokens(self.tokens(raw), explain, cutoffs)
