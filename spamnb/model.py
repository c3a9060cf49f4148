"""The model: counts, training options and the weight table, loaded and saved.

This is the library API behind the command line:

    from spamnb import Model
    model = Model.load("spam.model")
    score = model.score_message(open("msg.eml", "rb").read())
    score.label, score.probability, score.log_odds
"""

from __future__ import annotations

import datetime as _dt
import os
from dataclasses import dataclass, field

import numpy as np

from . import __version__
from .counts import HAM, SPAM, TokenCounts
from .errors import ModelError
from .message import decode_message
from .modelfile import (FORMAT_VERSION, build_hash_slots, check_u4, hash_size_for, read_model,
                        write_model)
from .scoring import Cutoffs, Score, WeightTable, score_tokens
from .tokens import TokenizerOptions, message_tokens
from .weights import EVENT_MODELS, log_odds_weights, presence_scoring


@dataclass(frozen=True)
class TrainOptions:
    # Mixed by default.  Ranking, 1-ROCA % by 10-fold cross-validation inside
    # the 70 % training part (bench/ablate.py --folds 10), spamassassin /
    # ccert_zh: mixed 0.273 / 0.017, Bernoulli 0.307 / 0.016, multinomial
    # 0.419 / 0.059.  At the default cutoffs on the unseen 30 %, mixed caught
    # 96.5 % / 96.2 % of spam against Bernoulli's 80.7 % / 94.7 %, losing less
    # ham (0.48 % / 0.09 % vs 0.56 % / 0.09 %): Bernoulli's absent-token terms
    # push short spam far toward ham.
    event_model: str = "mixed"
    alpha: float = 1.0
    tokenizer: TokenizerOptions = field(default_factory=TokenizerOptions)

    def __post_init__(self):
        if self.event_model not in EVENT_MODELS:
            raise ValueError(f"unknown event model {self.event_model!r}")
        if not self.alpha > 0:
            raise ValueError("alpha must be > 0 (1 is Laplace smoothing)")


def today() -> int:
    """Days since 1970-01-01 UTC: the unit of `last_seen`."""
    return int(_dt.datetime.now(_dt.timezone.utc).timestamp() // 86400)


class Model:
    """A trained naive Bayes spam model."""

    def __init__(self, counts: TokenCounts, options: TrainOptions,
                 cutoffs: Cutoffs | None = None, meta: dict | None = None) -> None:
        self._counts = counts
        self.options = options
        self.cutoffs = cutoffs or Cutoffs()
        self.meta = dict(meta or {})
        self._file = None
        self._sections: dict[str, np.ndarray] | None = None
        self._table: WeightTable | None = None
        self.bias: float = 0.0

    # -- building -----------------------------------------------------------

    @classmethod
    def from_counts(cls, counts: TokenCounts, options: TrainOptions,
                    cutoffs: Cutoffs | None = None) -> "Model":
        model = cls(counts, options, cutoffs)
        model.refresh()
        return model

    def refresh(self) -> None:
        """Recompute weights and the lookup index after the counts changed."""
        counts = self._counts
        computed = log_odds_weights(counts, self.options.event_model, self.options.alpha)
        encoded = [token.encode("utf-8", "surrogatepass") for token in counts.tokens]
        lengths = np.fromiter((len(e) for e in encoded), dtype=np.int64, count=len(encoded))
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        size = hash_size_for(len(encoded))
        self._sections = {
            "token_offsets": check_u4("token offsets", offsets),
            "token_bytes": np.frombuffer(b"".join(encoded), dtype=np.uint8),
            "occurrences": check_u4("occurrence counts", counts.occurrences),
            "documents": check_u4("document counts", counts.documents),
            "last_seen": counts.last_seen.astype("<u4"),
            "weights": computed.weights.astype("<f8"),
            "hash_slots": build_hash_slots(encoded, size),
        }
        self.bias = computed.bias
        self.meta["hash_size"] = size
        self._table = None

    # -- reading and writing -------------------------------------------------

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Model":
        model_file = read_model(path)
        meta = model_file.meta
        try:
            options = TrainOptions(
                event_model=meta["event_model"], alpha=float(meta["alpha"]),
                tokenizer=TokenizerOptions.from_dict(meta["tokenizer"]))
            cutoffs = Cutoffs(**meta["cutoffs"])
            model = cls(None, options, cutoffs, meta)  # type: ignore[arg-type]
            model._file = model_file
            model._sections = {name: model_file.array(name) for name in meta["sections"]}
            model.bias = float(meta["bias"])
            model._messages = np.array(meta["messages"], dtype=np.int64)
            model.table  # validate the index now, not at the first message
        except (KeyError, TypeError, ValueError) as error:
            raise ModelError(f"model {path} is not usable ({error}); retrain it") from None
        return model

    def save(self, path: str | os.PathLike) -> None:
        """Write the model atomically (see modelfile.write_model)."""
        assert self._sections is not None
        now = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        meta = {k: v for k, v in self.meta.items() if k != "sections"}
        meta.update({
            "format": "spamnb-model", "format_version": FORMAT_VERSION, "spamnb": __version__,
            "created": meta.get("created", now), "updated": now,
            "event_model": self.options.event_model, "alpha": self.options.alpha,
            "tokenizer": self.options.tokenizer.to_dict(),
            "messages": [int(m) for m in self.messages], "bias": self.bias,
            "cutoffs": {"spam": self.cutoffs.spam, "ham": self.cutoffs.ham},
            "vocabulary": len(self._sections["weights"]),
        })
        write_model(path, meta, self._sections)
        self.meta = meta

    # -- what is in it -------------------------------------------------------

    @property
    def counts(self) -> TokenCounts:
        """The full counts (decodes every token; not needed for scoring)."""
        if self._counts is None:
            s = self._sections
            offsets = s["token_offsets"].tolist()
            raw = s["token_bytes"].tobytes()
            tokens = [raw[a:b].decode("utf-8", "surrogatepass") for a, b in zip(offsets, offsets[1:])]
            self._counts = TokenCounts.from_arrays(tokens, s["occurrences"], s["documents"],
                                                   self._messages, s["last_seen"])
        return self._counts

    @property
    def messages(self) -> np.ndarray:
        """Messages learned per class, [ham, spam]."""
        if self._counts is not None:
            return self._counts.messages
        return self._messages

    @property
    def vocabulary_size(self) -> int:
        return len(self._sections["weights"])

    @property
    def weights(self) -> np.ndarray:
        return self._sections["weights"]

    def section(self, name: str) -> np.ndarray:
        return self._sections[name]

    @property
    def table(self) -> WeightTable:
        if self._table is None:
            s = self._sections
            self._table = WeightTable(s["token_offsets"], s["token_bytes"], s["weights"],
                                      s["hash_slots"], int(self.meta["hash_size"]))
        return self._table

    # -- scoring ---------------------------------------------------------------

    def tokens(self, raw: bytes) -> list[str]:
        return message_tokens(decode_message(raw), self.options.tokenizer)

    def score_tokens(self, tokens: list[str], explain: bool = False,
                     cutoffs: Cutoffs | None = None) -> Score:
        return score_tokens(tokens, self.table, self.bias, presence_scoring(self.options.event_model),
                            cutoffs or self.cutoffs, explain)

    def score_message(self, raw: bytes, explain: bool = False,
                      cutoffs: Cutoffs | None = None) -> Score:
        """Score one raw message (bytes as read from a file or stdin)."""
        return self.score_tokens(self.tokens(raw), explain, cutoffs)

    def lookup(self, token: str) -> dict | None:
        """Weight and counts of one token, or None if the model never saw it."""
        index = self.table.index(token)
        if index < 0:
            return None
        s = self._sections
        return {"token": token, "weight": float(s["weights"][index]),
                "spam_count": int(s["occurrences"][SPAM, index]),
                "ham_count": int(s["occurrences"][HAM, index]),
                "spam_messages": int(s["documents"][SPAM, index]),
                "ham_messages": int(s["documents"][HAM, index])}

    # -- inspection ------------------------------------------------------------

    def summary(self) -> dict:
        tokenizer = self.options.tokenizer
        return {
            "messages": {"spam": int(self.messages[SPAM]), "ham": int(self.messages[HAM])},
            "vocabulary": self.vocabulary_size,
            "event_model": self.options.event_model,
            "alpha": self.options.alpha,
            "bias": self.bias,
            "cutoffs": {"spam": self.cutoffs.spam, "ham": self.cutoffs.ham},
            "headers": list(tokenizer.headers),
            "stopwords": len(tokenizer.stopwords),
            "created": self.meta.get("created"),
            "updated": self.meta.get("updated"),
        }

    def top_tokens(self, n: int, spam: bool = True) -> list[dict]:
        """The n tokens with the largest (spam) or smallest (ham) weight."""
        weights = self.weights
        n = min(n, len(weights))
        if n <= 0:
            return []
        keys = -weights if spam else weights
        chosen = np.argpartition(keys, n - 1)[:n]
        chosen = chosen[np.argsort(keys[chosen], kind="stable")]
        s = self._sections
        offsets, raw = s["token_offsets"], s["token_bytes"]
        out = []
        for index in chosen.tolist():
            token = raw[offsets[index]:offsets[index + 1]].tobytes().decode("utf-8", "surrogatepass")
            out.append(self.lookup(token))
        return out
