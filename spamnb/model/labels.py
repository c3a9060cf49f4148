"""The two classes a message is learned as: their numbers and their names.

0 is ham and 1 is spam, the order scikit-learn gives labels 0 and 1: the row
of each class in the counts (counts.py), the class a learned message's digest
is recorded with, and the index into LABELS, the names `train` and `learn`
report and read in an index file.  Standard library only: `learn` appending
to a journal starts without numpy.  (A verdict's names, spam, ham and unsure,
are scoring.py's: a verdict has a third.)
"""

HAM, SPAM = 0, 1
LABELS = ("ham", "spam")
