"""Training options: everything that shapes a model, with the measured defaults.

Kept apart from model.py (and free of numpy) so the command line can show the
defaults without loading the numerical stack.
"""

from __future__ import annotations

import math

from ..record import Record
from ..text.tokens import TokenizerOptions
from .scoring import MIN_EVIDENCE

EVENT_MODELS = ("multinomial", "bernoulli", "mixed")
NORMALIZE = ("none", "sqrt", "mean")


def presence_scoring(event_model: str) -> bool:
    """Whether x_w is 1 for a present token (Bernoulli, mixed) or its count."""
    return event_model != "multinomial"


class TrainOptions(Record):
    """Everything that shapes a model (the measured defaults, with why, below)."""

    __slots__ = ("event_model", "alpha", "tokenizer", "robinson", "normalize", "top_k", "chunk",
                 "min_df", "max_features", "min_strength", "retrain_margin", "keywords")
    _defaults = {"event_model": "mixed", "alpha": 0.1, "robinson": 0.0, "normalize": "mean",
                 "top_k": 0, "chunk": 0, "min_df": 0, "max_features": 0,
                 "min_strength": 1.25, "retrain_margin": 3.0}
    _factories = {"tokenizer": TokenizerOptions, "keywords": frozenset}
    _frozen = True

    # Mixed by default.  Ranking, 1-ROCA % by 10-fold cross-validation inside
    # the 70 % training part (bench/ablate.py --folds 10), spamassassin /
    # ccert_zh: mixed 0.273 / 0.017, Bernoulli 0.307 / 0.016, multinomial
    # 0.419 / 0.059.  At the default cutoffs on the unseen 30 %, mixed caught
    # 96.5 % / 96.2 % of spam against Bernoulli's 80.7 % / 94.7 %, losing less
    # ham (0.48 % / 0.09 % vs 0.56 % / 0.09 %): Bernoulli's absent-token terms
    # push short spam far toward ham.
    event_model: str
    # Lidstone smoothing.  With mean normalisation, 5-fold cross-validation
    # inside the training part gave 1-ROCA % 0.096 / 0.007 (spamassassin /
    # ccert_zh) for 0.1, 0.095 / 0.008 for 0.3, 0.099 / 0.009 for 0.5 and
    # 0.115 / 0.011 for Laplace's 1.
    alpha: float
    tokenizer: TokenizerOptions
    # Strength s of Robinson's rare-token smoothing (0: off); see formula.shrink_rare.
    robinson: float
    # Length normalisation of the score: none, sqrt or mean (see scoring.ScoringRule).
    # Mean by default: 5-fold cross-validation inside the training part
    # (bench/ablate.py --folds 5) gave 1-ROCA % 0.122 / 0.011 (spamassassin /
    # ccert_zh) against 0.292 / 0.017 for plain sums, sqrt 0.170 / 0.010.
    # Naive Bayes counts correlated tokens as independent evidence, so a long
    # message's sum is extreme whichever way it leans; the mean ranks messages
    # of different lengths fairly, and calibration turns it into P(spam).
    # Top-k (Graham, k = 15: 0.177 / 0.008) and Robinson smoothing (s = 0.3
    # with the mean: 0.127 / 0.012) did not beat it on both corpora and stay
    # options.  (These numbers predate the ISO-2022-JP decoding fix, alpha 0.1
    # and bigrams; the later comparisons below and in tokens.py are against
    # the defaults of their time, as each says.)
    normalize: str
    # Score only the k tokens with the largest |contribution| (Graham); 0: all.
    top_k: int
    # Score long mail in chunks of this many tokens and keep the spammiest (0: whole).
    chunk: int
    # Give no weight to tokens seen in fewer training messages than this.
    min_df: int
    # Keep only this many tokens, by information gain (0: all).
    # None of the options above helped, so all are off (5-fold CV inside the
    # training part, 1-ROCA % spamassassin / ccert_zh, against 0.096 / 0.007
    # without them with α 0.1, mean and no bigrams): chunk 300
    # 0.144 / 0.020, min-df 2 0.124 / 0.009, max-features 20,000 0.118 /
    # 0.008, Robinson 0.3 0.102 / 0.008, top-k 30 (α 0.5) 0.143 / 0.007.
    max_features: int
    # Give no weight to tokens whose |λ| is below this (0: every token counts).
    # The mean-normalised score is a mean over the tokens a message holds, and
    # the many tokens that say little (|λ| < 2: a likelihood ratio under 7.4)
    # pull every message toward the middle; SpamBayes and bogofilter ignore
    # such a middle band of token probabilities alike.  Chosen by its worst
    # ratio to the best peer over the protocols inside the training parts
    # (1-ROCA % on trec06p later mail / ccert_zh later mail / spamassassin CV /
    # sa->trec / trec->sa, near errors counted twice; bench/weight_grid.py):
    #   2     0.002 / 0.020 / 0.022 / 12.47 / 8.26   worst 1.21 (sa->trec)
    #   1.5   0.001 / 0.024 / 0.027 / 10.56 / 7.46   worst 1.02 (sa->trec)
    #   1.25  0.002 / 0.027 / 0.035 /  9.62 / 7.10   worst 0.98 (ccert_zh)
    #   1     0.003 / 0.030 / 0.040 /  8.55 / 6.97   worst 1.07 (ccert_zh)
    # 1.25 is the only setting below the best peer on every protocol
    # (BENCHMARKS.md, "Choosing the defaults on mail they were not tuned on").
    min_strength: float
    # Count the near errors of training once more (0: off).  After every
    # training message is counted once, the messages the model then scores on
    # the wrong side of 0, or on the right side by less than this margin (raw
    # score, before calibration), are counted a second time, all at once:
    # one pass of CRM114's thick-threshold training (DSTTTR) on top of
    # counting everything.  Only its token occurrences N_cw are counted
    # again: the message counts M_c and document counts D_cw stay counts of
    # messages (so the prior, the Bernoulli model, min_df and the counts a
    # user is shown keep their meaning; the default mixed model weighs by
    # occurrences, so its ranking is what the measurements below give).
    # `forget` takes out one of a twice-counted message's two occurrence
    # counts.  Calibration holds each message out with all its copies.  Only
    # `train` does this; `learn` counts each message once.  Measured by
    # bench/weight_grid.py (1-ROCA %, trec06p later / ccert_zh later /
    # spamassassin CV / sa->trec / trec->sa), min strength 1.25: off 0.002 /
    # 0.034 / 0.044 / 10.87 / 7.19; margin 2 0.002 / 0.034 / 0.037 / 11.68 /
    # 7.09; 2.5 0.002 / 0.031 / 0.032 / 9.48 / 7.00; 3 0.002 / 0.027 / 0.035 /
    # 9.62 / 7.10; 3.5 0.005 / 0.032 / 0.038 / 9.46 / 7.58; 4 0.004 / 0.037 /
    # 0.039 / 10.94 / 7.46.  3 was best on ccert_zh at every min strength
    # tried (1 to 2).  Training messages that the counts rank wrongly pull the
    # weights of their tokens toward their label; CRM114 trains only on
    # these (DSTTTR), which ranked worse here (one pass from nothing, margin
    # 2, min strength 2: ccert_zh 0.105 against 0.029 for counting
    # everything, sa->trec 15.6 against 12.1).
    retrain_margin: float
    # A hand-made keyword list (关键词, `--keywords FILE`): when not empty, only
    # these tokens carry weight, every other one is counted but weighs 0.  For
    # users who want rules they can read; it ranks worse than every token
    # (BENCHMARKS.md, "Hand-made keyword lists").  Empty: all tokens.
    keywords: frozenset

    def _check(self):
        if self.event_model not in EVENT_MODELS:
            raise ValueError(f"unknown event model {self.event_model!r}")
        if not (self.alpha > 0 and math.isfinite(self.alpha)):
            raise ValueError("alpha must be a finite number > 0 (1 is Laplace smoothing)")
        if self.robinson < 0:
            raise ValueError("the Robinson strength must be >= 0")
        if self.normalize not in NORMALIZE:
            raise ValueError(f"normalize must be one of {', '.join(NORMALIZE)}")
        if not (self.min_strength >= 0 and math.isfinite(self.min_strength)):
            raise ValueError("the minimum strength must be a finite number >= 0")
        if not (self.retrain_margin >= 0 and math.isfinite(self.retrain_margin)):
            raise ValueError("the retraining margin must be a finite number >= 0")
        if min(self.top_k, self.chunk, self.min_df, self.max_features) < 0:
            raise ValueError("top-k, chunk, min-df and max-features must be >= 0")
        if 0 < self.chunk < MIN_EVIDENCE:  # every chunk would be too short for a verdict
            raise ValueError(f"chunk must be 0 or at least {MIN_EVIDENCE} tokens (a verdict needs {MIN_EVIDENCE})")
