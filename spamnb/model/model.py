"""The model: counts, training options and the weight table, loaded and saved.

This is the library API behind the command line:

    from spamnb import Model
    model = Model.load("spam.model")
    score = model.score_message(open("msg.eml", "rb").read())
    score.label, score.probability, score.log_odds

A Model is a Scorer (scorer.py) that also holds the counts: it is built from
them (weights.py turns them into λ), read whole from its file (modelread.py)
with its journal folded in, written back, and fitted calibration and
cutoffs on held-out scores (heldout.py, calibration.py).  What `inspect`
says of one is inspection.py's; which messages a file holds, learned.py's.
"""

from __future__ import annotations

import datetime as _dt
import os

import numpy as np

from .. import __version__
from .counts import TokenCounts, still_counted
from .labels import HAM, SPAM
from ..errors import ModelError
from .modelfile import BLOCK_KEYS, FORMAT_VERSION, check_u4, occurrence_crcs, write_model
from .modelread import MAX_TOKEN_BYTES, read_model
from .calibration import FIT_MINIMUM_HAM, fit_cutoffs, fit_platt, tune_cutoffs
from .options import TrainOptions
from .scorer import (SCORING_SECTIONS, Scorer, check_scoring_meta, check_tokenizer_version, cutoffs_from_meta,
                     options_from_meta, options_to_meta)
from .heldout import blocked_raw_scores_by_key
from .keyscores import KeyColumns, keys_of, unique_keys
from .journal import RECENT_MINIMUM, RECENT_SCORES
from .learned import LearnedDigests, learned_after_journal
from .scoring import Cutoffs, WeightTable
from .._core import block_crcs
from ..text.tokens import TOKENIZER_VERSION
from .weights import keyword_keys_of, selected_tokens, weights_of_arrays

# Sections read only to learn, inspect or export: stored compressed.
# Raw (mapped) besides the scoring sections: occurrences and digests, which
# `learn` reads a few entries of (spamnb/learning/incremental.py).
COMPRESSED = frozenset({"token_lengths", "token_bytes", "documents", "last_seen",
                        "recent_raw", "recent_labels"})


def _narrow(counts: np.ndarray) -> np.ndarray:
    """Occurrence counts as 16-bit numbers when they fit (stored raw: half the bytes)."""
    if counts.size == 0 or int(counts.max()) <= 0xFFFF:
        return counts.astype("<u2")
    return counts


def _journal_changes(state, base_keys: np.ndarray):
    """A journal's changes as arrays against a base's sorted keys: (keys,
    changes [key, 4], the day each key last changed, each key's place in the
    base, whether the base holds it, whether it is new).  Raises ValueError for
    a new key whose text the journal never gave."""
    keys = np.fromiter(state.changes.keys(), dtype=np.uint64, count=len(state.changes))
    changes = np.array(list(state.changes.values()), dtype=np.int64).reshape(len(keys), 4)
    days = np.fromiter(map(state.last_day.__getitem__, state.changes.keys()), dtype=np.int64, count=len(keys))
    at = np.searchsorted(base_keys, keys)
    found = at < len(base_keys)
    found[found] = base_keys[at[found]] == keys[found]
    new = ~found
    missing = [int(key) for key in keys[new] if int(key) not in state.new_tokens]
    if missing:
        raise ValueError(f"the journal changes {len(missing)} tokens it never names")
    return keys, changes, days, at, found, new


def file_meta(meta: dict, options: TrainOptions, messages, bias: float, cutoffs: Cutoffs, vocabulary: int,
              totals) -> dict:
    """The model file's header (less its section table) for a model with these values."""
    now = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    meta = {k: v for k, v in meta.items() if k != "sections"}
    meta.update({
        "format": "spamnb-model", "format_version": FORMAT_VERSION, "spamnb": __version__,
        "tokenizer_version": TOKENIZER_VERSION,
        "created": meta.get("created", now), "updated": now,
        **options_to_meta(options),
        "messages": [int(m) for m in messages], "bias": bias,
        "cutoffs": {"spam": cutoffs.spam, "ham": cutoffs.ham},
        "vocabulary": int(vocabulary),
        # Σ_w N_cw per class [ham, spam]: with V, the constant of every λ (scorer.LiveTable).
        "totals": [int(total) for total in totals],
    })
    return meta


class Model(Scorer):
    """A trained naive Bayes spam model: the counts, and a Scorer built on them."""

    # Set by load() for a model read from a file (declared for the type checker).
    _file_size: int
    _messages: np.ndarray

    def __init__(self, counts: TokenCounts, options: TrainOptions,
                 cutoffs: Cutoffs | None = None, meta: dict | None = None) -> None:
        super().__init__(options, cutoffs, meta)
        self._counts = counts
        self._sections: dict[str, np.ndarray] | None = None
        self._selected: np.ndarray | None = None  # feature selection of the last refresh
        self.recent_raw = np.zeros(0)  # see RECENT_SCORES
        self.recent_labels = np.zeros(0, dtype=np.uint8)

    # -- building -----------------------------------------------------------

    @classmethod
    def from_counts(cls, counts: TokenCounts, options: TrainOptions,
                    cutoffs: Cutoffs | None = None) -> "Model":
        model = cls(counts, options, cutoffs)
        model.refresh()
        return model

    @classmethod
    def empty(cls, options: TrainOptions) -> "Model":
        """A model that has learned nothing yet (`learn` into a new file):
        it scores every message unsure until it has seen spam and ham."""
        return cls.from_counts(TokenCounts(), options)

    def refresh(self, keep_calibration: bool = False) -> None:
        """Recompute weights and the scoring sections after the counts changed.

        The counts are put in key order first (modelfile.py): then row i of
        every section is the same token, and equal counts give an equal file.
        `keep_calibration`: after learning a few messages the fitted mapping
        from raw score to probability (and the cutoffs tuned with it) still
        holds; after training from scratch it is refitted.
        """
        counts = self._counts
        present = still_counted(counts.occurrences, counts.documents)
        if not present.all():
            # A token no message holds is not in the vocabulary V (an import may
            # list one): V, and the journal's count of it, stay what learning says.
            counts = self._counts = counts.subset(present)
        keys = counts.keys
        order = np.argsort(keys, kind="stable")
        if (order != np.arange(len(order))).any():
            counts = self._counts = counts.take(order)
            keys = keys[order]
        if len(keys) > 1 and (keys[1:] == keys[:-1]).any():
            at = int(np.flatnonzero(keys[1:] == keys[:-1])[0])
            # A model with two equal keys could be written but never loaded again.
            raise ValueError(f"tokens {counts.tokens[at]!r} and {counts.tokens[at + 1]!r} share a key")
        self._selected = self._selection(counts.documents, counts.messages, keys)
        encoded = [token.encode("utf-8", "surrogatepass") for token in counts.tokens]
        digests, classes = counts.learned.arrays()
        self._set_sections(keys, counts.occurrences, counts.documents, counts.messages, counts.last_seen,
                           np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)),
                           np.frombuffer(b"".join(encoded), dtype=np.uint8), digests, classes,
                           keep_calibration)

    def _set_sections(self, keys, occurrences, documents, messages, last_seen, token_lengths, token_bytes,
                      digests, digest_classes, keep_calibration: bool) -> None:
        """The file's sections from the counts in key order (self._selected already set):
        the weights, the block index and checksums, and the counts as stored."""
        computed = weights_of_arrays(occurrences, documents, messages, self.options.event_model,
                                     self.options.alpha, self.options.robinson, self.options.min_strength)
        if not (np.isfinite(computed.weights).all() and np.isfinite(computed.bias)):
            raise ValueError("the weights are not finite numbers; is alpha reasonable?")
        assert self._selected is not None  # set by the caller
        weights = np.where(self._selected, computed.weights, 0.0).astype("<f4")
        keys = keys.astype("<u8")
        occurrences = _narrow(check_u4("occurrence counts", occurrences))
        self._sections = {
            "keys": keys,
            "weights": weights,
            "block_first": keys[::BLOCK_KEYS].copy(),
            "block_crcs": np.array(block_crcs(keys.tobytes(), weights.tobytes(), BLOCK_KEYS), dtype="<u4"),
            "token_lengths": check_u4("token lengths", token_lengths),
            "token_bytes": token_bytes,
            "occurrences": occurrences,
            "occurrence_crcs": np.array(occurrence_crcs(occurrences), dtype="<u4"),
            "documents": check_u4("document counts", documents),
            "last_seen": last_seen.astype("<u4"),
            "digests": digests.astype("<u8"),
            "digest_classes": digest_classes.astype(np.uint8),
            "recent_raw": self.recent_raw.astype("<f8"),
            "recent_labels": self.recent_labels.astype(np.uint8),
        }
        self.bias = computed.bias
        self.meta["block_size"] = BLOCK_KEYS
        if not keep_calibration:
            self.meta.pop("calibration", None)  # fitted to the old counts
        self._table = None

    def _selection(self, documents: np.ndarray, messages: np.ndarray, keys: np.ndarray) -> np.ndarray:
        """Which tokens of this model may weigh (weights.selected_tokens)."""
        return selected_tokens(documents, messages, keys, self.options, keyword_keys_of(self.options))

    # -- reading and writing -------------------------------------------------

    @classmethod
    def open(cls, path: str | os.PathLike, model_file=None, base=None) -> "Model":
        """A Model holds every count, so opening one is loading it whole
        (Scorer.open maps a model for scoring only)."""
        return cls.load(path)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Model":
        """Read a whole model, checking every byte (scoring alone: Scorer.open)."""
        model_file = read_model(path)
        meta = model_file.meta
        try:
            check_scoring_meta(meta)
            model = cls(None, options_from_meta(meta), cutoffs_from_meta(meta), meta)  # type: ignore[arg-type]
            messages = meta["messages"]
            if not (isinstance(messages, list) and len(messages) == 2
                    and all(isinstance(m, int) and not isinstance(m, bool) and 0 <= m < 2**62 for m in messages)):
                raise ValueError("message counts are not two whole numbers")
            # Copied out of the mapping: a long-lived reader (serve) must not
            # see, or die of (SIGBUS), a file rewritten in place by `cp`.
            # token_bytes last: its stated size is checked against the
            # token lengths before it is decompressed (modelread.check_layout).
            model._sections = {}
            for name in sorted(meta["sections"], key=lambda name: name == "token_bytes"):
                if name == "token_bytes" and "token_lengths" in model._sections:
                    lengths = model._sections["token_lengths"]
                    if lengths.size and int(lengths.max()) > MAX_TOKEN_BYTES:
                        raise ValueError("a token is longer than any token spamnb makes")
                    if int(lengths.sum(dtype=np.int64)) != meta["sections"]["token_bytes"]["shape"][0]:
                        raise ValueError("token lengths disagree with the token bytes")
                model._sections[name] = np.array(model_file.array(name))
            model._file_size = model_file.size
            model.bias = float(meta["bias"])
            model._messages = np.array(messages, dtype=np.int64)
            model._check_structure()
            if "occurrence_crcs" not in model._sections:  # a file from before them: its next write has them
                model._sections["occurrence_crcs"] = np.array(occurrence_crcs(model._sections["occurrences"]),
                                                              dtype="<u4")
            model.recent_raw = model._sections.get("recent_raw", np.zeros(0)).astype(np.float64)
            model.recent_labels = model._sections.get("recent_labels", np.zeros(0, dtype=np.uint8))
            state, _torn = model_file.journal()
            if state:
                model._apply_journal(state)
            model.table  # noqa: B018 -- the property builds the lookup now, not at the first message
        except (KeyError, TypeError, ValueError, IndexError, ArithmeticError) as error:
            raise ModelError(f"model {path} is not usable ({error}); retrain it") from None
        return model

    def _apply_journal(self, state) -> None:
        """Fold the learning recorded in the journal (journal.py) into the stored
        arrays, giving the model a full retrain on the same messages would: at
        load, and so in what `learn` does every COMPACT_BYTES of journal
        (incremental.compact).  The tokens' text stays bytes: decoding every
        token into a Python string and back would be most of a compaction's
        CPU (BENCHMARKS.md "Online through the command line"); here the
        changed tokens are added in place and the new ones inserted at their
        key's place, O(vocabulary) in numpy."""
        s = self._sections
        assert s is not None  # loaded
        base_keys = s["keys"].astype(np.uint64)
        keys, changes, days, at, found, new = _journal_changes(state, base_keys)
        occurrences = s["occurrences"].astype(np.int64)
        documents = s["documents"].astype(np.int64)
        last_seen = s["last_seen"].astype(np.int64)
        occurrences[:, at[found]] += changes[found][:, 0:2].T
        documents[:, at[found]] += changes[found][:, 2:4].T
        last_seen[at[found]] = np.maximum(last_seen[at[found]], days[found])
        lengths = s["token_lengths"].astype(np.int64)
        token_bytes = s["token_bytes"]
        # The new tokens, in key order, each inserted before the first base key above it.
        order = np.argsort(keys[new], kind="stable")
        new_keys, new_changes, new_days = keys[new][order], changes[new][order], days[new][order]
        encoded = [state.new_tokens[key].encode("utf-8", "surrogatepass") for key in new_keys.tolist()]
        new_lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
        place = np.searchsorted(base_keys, new_keys)
        starts = np.concatenate([[0], np.cumsum(lengths)])
        token_bytes = np.insert(token_bytes, np.repeat(starts[place], new_lengths),
                                np.frombuffer(b"".join(encoded), dtype=np.uint8))
        keys = np.insert(base_keys, place, new_keys)
        lengths = np.insert(lengths, place, new_lengths)
        occurrences = np.insert(occurrences, place, new_changes[:, 0:2].T, axis=1)
        documents = np.insert(documents, place, new_changes[:, 2:4].T, axis=1)
        last_seen = np.insert(last_seen, place, new_days)
        messages = self._messages + np.asarray(state.messages, dtype=np.int64)
        if occurrences.min(initial=0) < 0 or documents.min(initial=0) < 0 or messages.min() < 0:
            raise ValueError("the journal takes out more than the model holds")
        present = still_counted(occurrences, documents)
        if not present.all():  # every message that held them forgotten: they leave V
            token_bytes = token_bytes[np.repeat(present, lengths)]
            keys, lengths, last_seen = keys[present], lengths[present], last_seen[present]
            occurrences, documents = occurrences[:, present], documents[:, present]
        digests, classes = learned_after_journal(LearnedDigests(s["digests"], s["digest_classes"])
                                                 if "digests" in s else LearnedDigests(), state).arrays()
        if state.recent:
            raw, labels = zip(*state.recent)
            self.recent_raw = np.concatenate([self.recent_raw, raw])[-RECENT_SCORES:]
            self.recent_labels = np.concatenate([self.recent_labels,
                                                 np.asarray(labels, dtype=np.uint8)])[-RECENT_SCORES:]
        self._messages = messages
        self._selected = self._selection(documents, messages, keys)
        # Calibration stays the base's, as every reader of the file sees it
        # (scorer.LiveTable); incremental.compact refits.
        self._set_sections(keys, occurrences, documents, messages, last_seen.astype(np.uint32), lengths,
                           token_bytes, digests, classes, keep_calibration=True)

    def _check_structure(self) -> None:
        """Section shapes and values consistent with the vocabulary size.

        The checksum proves the file is what was written; this proves what
        was written is a model (a hand-made or foreign-tool file could pass
        the checksum and still index out of range).
        """
        check_tokenizer_version(self.meta)
        assert self._sections is not None  # refreshed or loaded
        s = self._sections
        size = len(s["keys"])
        blocks = -(-size // int(self.meta["block_size"])) if int(self.meta["block_size"]) > 0 else -1
        expected = {"weights": (size,), "token_lengths": (size,), "occurrences": (2, size),
                    "documents": (2, size), "last_seen": (size,), "block_first": (blocks,),
                    "block_crcs": (blocks,), "occurrence_crcs": (blocks,)}
        for name, shape in expected.items():
            if name in s and s[name].shape != shape:  # occurrence_crcs: not in a model written before it
                raise ValueError(f"section {name} has shape {s[name].shape}, expected {shape}")
        if "occurrence_crcs" in s and occurrence_crcs(s["occurrences"]) != s["occurrence_crcs"].tolist():
            raise ValueError("the occurrence checksums disagree with the counts")
        if int(s["token_lengths"].sum(dtype=np.int64)) != len(s["token_bytes"]):
            raise ValueError("token lengths disagree with the token bytes")
        # Compared, not np.diff: a difference of unsigned keys wraps around
        # and is never negative, so keys in reverse order passed.
        if (s["keys"][1:] <= s["keys"][:-1]).any():
            raise ValueError("token keys out of order or repeated")
        if not np.array_equal(s["block_first"], s["keys"][::int(self.meta["block_size"])]):
            raise ValueError("the block index disagrees with the keys")
        if not np.isfinite(s["weights"]).all():
            raise ValueError("weights out of range")
        if not np.isfinite(self.bias):
            raise ValueError("bias is not a finite number")
        if "digests" in s and s["digests"].shape != s["digest_classes"].shape:
            raise ValueError("digest sections disagree")
        if s.get("recent_raw", np.zeros(0)).shape != s.get("recent_labels", np.zeros(0)).shape:
            raise ValueError("recent score sections disagree")
        if not np.isfinite(s.get("recent_raw", np.zeros(0))).all() or (s.get("recent_labels", np.zeros(0)) > 1).any():
            raise ValueError("recent scores out of range")

    def save(self, path: str | os.PathLike, level: int = 6) -> None:
        """Write the model atomically (see modelfile.write_model), its
        compressed sections at zlib `level`."""
        assert self._sections is not None
        meta = file_meta(self.meta, self.options, self.messages, self.bias, self.cutoffs,
                         len(self._sections["weights"]), self._sections["occurrences"].sum(axis=1, dtype=np.int64))
        write_model(path, meta, self._sections, COMPRESSED, level)
        self.meta = meta

    # -- what is in it -------------------------------------------------------

    @property
    def counts(self) -> TokenCounts:
        """The full counts (decodes every token; not needed for scoring)."""
        if self._counts is None:
            assert self._sections is not None  # refreshed or loaded
            s = self._sections
            raw = s["token_bytes"].tobytes()
            ends = np.cumsum(s["token_lengths"], dtype=np.int64).tolist()
            tokens = [raw[a:b].decode("utf-8", "surrogatepass") for a, b in zip([0, *ends], ends)]
            self._counts = TokenCounts.from_arrays(tokens, s["occurrences"], s["documents"],
                                                   self._messages, s["last_seen"], s["keys"])
            if "digests" in s:
                self._counts.learned = LearnedDigests(s["digests"], s["digest_classes"])
        return self._counts

    @property
    def messages(self) -> np.ndarray:
        """Messages learned per class, [ham, spam]."""
        if self._counts is not None:
            return self._counts.messages
        return self._messages

    @property
    def vocabulary_size(self) -> int:
        assert self._sections is not None  # refreshed or loaded
        return len(self._sections["weights"])

    @property
    def weights(self) -> np.ndarray:
        """λ_w in key order (as stored: 32-bit floats)."""
        assert self._sections is not None  # refreshed or loaded
        return self._sections["weights"]

    @property
    def table(self) -> WeightTable:
        if self._table is None:
            assert self._sections is not None  # refreshed or loaded
            self._table = WeightTable(*(self._sections[name] for name in SCORING_SECTIONS[:3]),  # type: ignore[misc, arg-type]  # the star fills the arrays only
                                      block_size=int(self.meta["block_size"]))
        return self._table  # type: ignore[return-value]  # a LiveTable scores as a WeightTable does

    # -- calibration and cutoffs ---------------------------------------------

    def calibrate(self, documents: list[np.ndarray] | list[list[str]], labels: list[int],
                  copies: list[int] | None = None) -> dict | None:
        """Fit P(spam) = σ(a · raw + c) on held-out scores of training messages,
        given as arrays of token keys or as token lists (scored by their keys).

        The messages (in the order read) are cut into blocks of time per
        class, and each block from the third on is scored with the counts of
        the blocks before it (blocked_raw_scores_by_key, each_block_held_out): the
        score a model gave mail that came after what it had learned, as
        tomorrow's mail will meet this one.  Blocks scored by all the other
        mail, later blocks included, never showed drift: trained on
        trec06p's first 5,000 messages, cutoffs fitted on them lost 1.30 % of
        the later ham (bench/verdicts.py).  (The Bernoulli bias's
        absent-token sum is not recomputed per block.)  `copies`: how many
        times each message was counted (see held_out_raw_scores_by_key).  None, and
        no calibration, when the scored blocks lack a class.
        """
        # The model's own feature selection.  Not `weights != 0`: a token too
        # weak for min_strength in the whole model may be strong without this
        # block, and the held-out weights are recomputed like any other.
        # (min_df and max_features select on the whole model's counts.)
        counts = self.counts
        if self._selected is None:  # a loaded model: its counts, as refresh would select
            self._selected = self._selection(counts.documents, counts.messages, counts.keys)
        keyed = [keys if isinstance(keys, np.ndarray) else keys_of(keys) for keys in documents]
        columns = KeyColumns.of_counts(counts, unique_keys(keyed), self._selected)
        raw = blocked_raw_scores_by_key(columns, keyed, labels, counts.occurrences.sum(axis=1), len(counts),
                                        counts.messages, self.options, copies=copies)
        return self.fit_calibration(raw, labels)

    def fit_calibration(self, raw: np.ndarray, labels: list[int]) -> dict | None:
        """Fit P(spam) = σ(a · raw + c) on held-out raw scores (see calibrate);
        None, and no calibration, when they hold no scored message of one
        class (a few messages, or none with evidence, after the first blocks)."""
        raw = np.asarray(raw, dtype=np.float64)
        if len(set(np.asarray(labels)[~np.isnan(raw)].tolist())) < 2:
            self.meta.pop("calibration", None)
            self.held_out_log_odds = None
            return None
        scale, offset = fit_platt(raw, np.asarray(labels))
        self.meta["calibration"] = {"scale": scale, "offset": offset, "messages": len(labels)}
        rule = self.rule
        self.held_out_log_odds = rule.offset + rule.scale * raw  # an unscored message (NaN) stays NaN
        return self.meta["calibration"]

    def record_recent(self, raw: float, label: int) -> None:
        """Keep the score a message had before it was learned (the last
        RECENT_SCORES); one with no evidence (NaN) tells calibration nothing."""
        if raw != raw:
            return
        self.recent_raw = np.append(self.recent_raw, raw)[-RECENT_SCORES:]
        self.recent_labels = np.append(self.recent_labels, np.uint8(label))[-RECENT_SCORES:]

    def refit_from_recent(self) -> bool:
        """Refit calibration on the recorded scores of learned mail.

        Those scores came from the model before it saw each message, so they
        are what the model says of new mail, drift included: the forward
        chaining that `train` calibrates on (each_block_held_out), a message
        at a time.  A model that `learn` built from nothing refits as soon as
        it has RECENT_MINIMUM of each class on record; one calibrated by
        `train` keeps that calibration until RECENT_SCORES are on record,
        then follows them.  The cutoffs stay, unless `evaluate --tune` set
        them (`cutoffs_tuned`: tuned again at the same rates) or they were
        fitted (`cutoffs_fitted`, or a model learned from nothing: fitted
        again by the same rule, calibration.fit_cutoffs).
        """
        labels = self.recent_labels.astype(np.int64)
        if min(int((labels == HAM).sum()), int((labels == SPAM).sum())) < RECENT_MINIMUM:
            return False
        calibration = self.meta.get("calibration")
        trained = calibration is not None and calibration.get("source") != "learned"
        if trained and len(labels) < RECENT_SCORES:
            return False
        scale, offset = fit_platt(self.recent_raw, labels)
        self.meta["calibration"] = {"scale": scale, "offset": offset, "messages": len(labels),
                                    "source": "learned"}
        log_odds = self.rule.log_odds(self.recent_raw)
        tuned = self.meta.get("cutoffs_tuned")
        if tuned is not None and "by" in tuned:  # evaluate --tune's: the user's rates, kept
            max_fpr, max_fnr = tuned.get("max_fpr", 0.001), tuned.get("max_fnr", 0.005)
            spam, ham = tune_cutoffs(log_odds, labels, max_fpr, max_fnr)
            self.cutoffs = Cutoffs(spam=spam, ham=ham)
            self.meta["cutoffs_tuned"] = {**tuned, "messages": len(labels), "source": "learned"}
        # Fitted by the rule (by train, by an earlier refit, or by an older train, whose
        # tuned cutoffs carry no "by"), or a model learn built from nothing (no
        # calibration before this one).  Cutoffs a user set by hand stay: they have none
        # of these marks and a calibration of their train's.
        elif "cutoffs_fitted" in self.meta or tuned is not None or calibration is None:
            self.meta.pop("cutoffs_tuned", None)
            self._set_fitted_cutoffs(log_odds, labels, "learned")
        return True

    def fit_cutoffs(self, labels: list[int]) -> Cutoffs:
        """Set the cutoffs from the held-out scores of the last `calibrate`
        (calibration.fit_cutoffs); `learn` refits them the same way on the
        scores learned mail had (refit_from_recent)."""
        if self.held_out_log_odds is None:  # not calibrated: nothing to fit them on
            self.cutoffs = Cutoffs()
            return self.cutoffs
        self._set_fitted_cutoffs(self.held_out_log_odds, np.asarray(labels), "train")
        return self.cutoffs

    def _set_fitted_cutoffs(self, log_odds: np.ndarray, labels: np.ndarray, source: str) -> None:
        """calibration.fit_cutoffs on scores of mail the model had not seen, and
        a record of what they were fitted on: the scored messages (held-out
        blocks that only teach, and messages with no evidence, are not) and
        whether there were ham enough to fit the spam cutoff at all."""
        spam, ham = fit_cutoffs(log_odds, labels)
        self.cutoffs = Cutoffs(spam=spam, ham=ham)
        scored = ~np.isnan(np.asarray(log_odds, dtype=np.float64))
        scored_ham = int((scored & (np.asarray(labels) == HAM)).sum())
        self.meta["cutoffs_fitted"] = {"messages": int(scored.sum()), "ham": scored_ham,
                                       "spam_fitted": scored_ham >= FIT_MINIMUM_HAM, "source": source}

    # -- tokens (inspection.py tells the rest of what `inspect` shows) ----------

    def lookup(self, token: str) -> dict | None:
        """Weight and counts of one token, or None if the model never saw it."""
        index = self.table.index(token)
        return None if index < 0 else self._row(index, token)

    def _row(self, index: int, token: str) -> dict:
        assert self._sections is not None  # refreshed or loaded
        s = self._sections
        return {"token": token, "weight": float(s["weights"][index]),
                "spam_count": int(s["occurrences"][SPAM, index]),
                "ham_count": int(s["occurrences"][HAM, index]),
                "spam_messages": int(s["documents"][SPAM, index]),
                "ham_messages": int(s["documents"][HAM, index])}

    def top_tokens(self, n: int, spam: bool = True) -> list[dict]:
        """The n tokens with the largest (spam) or smallest (ham) weight."""
        weights = self.weights
        n = min(n, len(weights))
        if n <= 0:
            return []
        keys = -weights if spam else weights
        chosen = np.argpartition(keys, n - 1)[:n]
        chosen = chosen[np.argsort(keys[chosen], kind="stable")]
        tokens = self.counts.tokens
        return [self._row(index, tokens[index]) for index in chosen.tolist()]
