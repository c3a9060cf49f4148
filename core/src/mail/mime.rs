//! Ported from spamnb/mail/mime.py.
