//! Ported from spamnb/mail/addresses.py.
