//! Ported from spamnb/text/ (tokens.py, normalise).
