"""Model: counts to weights to scores, and the file that holds them.

In:  token lists and labels (from spamnb.text, via spamnb.learning), or a
     model file.
Out: `TokenCounts` (counts), the classes' numbers (labels), per-token
     log-odds weights (the rule: formula; a vocabulary at once: weights), held-out raw scores (heldout, scored by
     keyscores: messages as token keys), Platt calibration and cutoffs (calibration),
     `TrainOptions` (options), the scoring rule and `Score` (scoring), a
     model opened for scoring only (scorer: `Scorer`) or with its counts
     (model: `Model`), either as scoring needs (opening), what `inspect`
     tells of one (inspection), the messages a file has learned (learned),
     the model file (modelfile: layout and writing; modelread: checked
     reading; modelstore: atomic replacement, the writers' lock, backups)
     and its journal (journal), and export, import, prune and merge (upkeep).

Never imports: spamnb.learning, spamnb.app; nor click or rich.  May import
spamnb.text, spamnb.mail and the foundation modules.  The scoring path
(scoring, scorer, opening, formula, modelfile, modelread, modelstore,
journal, options, labels) imports no numpy at module level: a fresh process scores
a message with the standard library alone.

This file imports nothing: the fast path pays only for the modules it uses.
"""
