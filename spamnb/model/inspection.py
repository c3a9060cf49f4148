"""What `spamnb inspect` tells of a model: its summary, where its cutoffs
came from, and why a token looked up weighs nothing.  (Model.lookup and
Model.top_tokens, the rows it shows, are the library's too.)
"""

from __future__ import annotations

import numpy as np

from .labels import HAM, SPAM
from .weights import on_keyword_list, token_weights

TYPE_CHECKING = False  # mypy reads this name as true
if TYPE_CHECKING:
    from .model import Model


def summary(model: Model) -> dict:
    assert model._sections is not None  # refreshed or loaded
    tokenizer = model.options.tokenizer
    return {
        "messages": {"spam": int(model.messages[SPAM]), "ham": int(model.messages[HAM])},
        "vocabulary": model.vocabulary_size,
        "event_model": model.options.event_model,
        "alpha": model.options.alpha,
        "robinson": model.options.robinson,
        "normalize": model.options.normalize,
        "top_k": model.options.top_k,
        "min_strength": model.options.min_strength,
        "retrain_margin": model.options.retrain_margin,
        "bigrams": tokenizer.bigrams,
        "calibration": model.meta.get("calibration"),
        "bias": model.bias,
        "cutoffs": {"spam": model.cutoffs.spam, "ham": model.cutoffs.ham, "set_by": cutoffs_set_by(model.meta)},
        "headers": list(tokenizer.headers),
        "stopwords": len(tokenizer.stopwords),
        "keywords": len(model.options.keywords),
        "created": model.meta.get("created"),
        "updated": model.meta.get("updated"),
        "learned_digests": len(model._sections.get("digests", ())),
        "file_bytes": getattr(model, "_file_size", None),
    }


def cutoffs_set_by(meta: dict) -> str:
    """Where the cutoffs of a model with this header came from, in a few words
    (inspect prints them on the cutoffs' line, within 80 columns)."""
    tuned, fitted = meta.get("cutoffs_tuned"), meta.get("cutoffs_fitted")
    if tuned is not None and "by" in tuned:
        how = f"tuned at {100 * tuned.get('max_fpr', 0.001):g} % ham lost"
        if tuned.get("source") == "learned":
            how += f"; {tuned.get('messages', 0):,} learned"
        return how
    if tuned is not None:
        return "an older train's: retrain"
    if fitted is not None:
        kind = "learned" if fitted.get("source") == "learned" else "held-out"
        if fitted.get("spam_fitted") is False:
            return f"default: {fitted.get('ham', 0):,} {kind} ham, too few to fit"
        return f"fitted on {fitted.get('messages', 0):,} {kind} messages"
    return "set by hand" if meta.get("calibration") else "defaults"


def weight_note(model: Model, token: str, row: dict | None) -> str | None:
    """Why a looked-up token weighs nothing, in words (None when it weighs):
    never counted (a stop word), never seen, or the rule that set its λ
    to 0 (keyword list, feature selection, minimum strength).  `row`:
    model.lookup(token)."""
    options = model.options
    if row is None:
        if token in options.tokenizer.stopwords:
            return "a stop word: never counted"
        return "never seen in training"
    if row["weight"] != 0:
        return None
    if model.messages.min() <= 0:
        return "the model has not seen both spam and ham yet: every weight is 0"
    if options.keywords and not on_keyword_list(options, token):
        return "not on the keyword list (--keywords): weighs 0"
    in_messages = row["spam_messages"] + row["ham_messages"]
    if options.min_df > 1 and in_messages < options.min_df:
        return f"in {in_messages:,} messages, fewer than --min-df {options.min_df}: weighs 0"
    assert model._sections is not None  # refreshed or loaded
    s = model._sections
    index = model.table.index(token)
    strength, _ = token_weights(s["occurrences"][:, [index]].astype(np.float64),
                                s["documents"][:, [index]].astype(np.float64),
                                model.messages.astype(np.float64),
                                s["occurrences"].sum(axis=1, dtype=np.int64).astype(np.float64),
                                model.vocabulary_size, options.event_model, options.alpha,
                                options.robinson, 0.0)
    weight = float(strength[0])
    if options.min_strength > 0 and abs(weight) < options.min_strength:
        return f"|λ| = {abs(weight):.3f} < --min-strength {options.min_strength:g}"
    if options.max_features:
        return f"not among the --max-features {options.max_features:,} most informative tokens: weighs 0"
    if weight == 0:
        return "as often in spam as in ham: λ = 0"
    return None
