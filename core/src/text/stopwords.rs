//! Ported from spamnb/text/ (tokens.py, stopwords).
