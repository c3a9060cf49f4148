"""Learning: labelled mail to a model file, whole (train) or one message at a time (learn).

In:  paths of spam and ham, `TrainOptions`, an executor to count on.
Out: a model file (training, with countruns and modelbuild when the counts
     outgrow memory) or journal records appended to one (incremental), and
     the reports of what was read and skipped (labelled).

Never imports: spamnb.app; nor click or rich.  May import spamnb.model,
spamnb.text, spamnb.mail and the foundation modules.

This file imports nothing: the fast path pays only for the modules it uses.
"""
