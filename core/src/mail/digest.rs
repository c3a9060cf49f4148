//! Ported from spamnb/mail/digest.py.
