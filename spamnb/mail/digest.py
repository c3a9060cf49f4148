"""A message's identity for "have I learned this before?", and the status
fields spamnb writes.

The digest (core/src/mail/digest.rs) is SHA-256 (first 8 bytes) of the
message with what delivery changes taken out: the mbox From_ envelope line,
CRLF line ends, and our own status header, so a message learned straight
from a folder and the same message after `spamnb filter` added its header
are one message.  STATUS_VALUE is the value `spamnb filter` writes
(`Yes, score=0.9987, log-odds=6.64, model=NAME`), whatever the field's name:
a field holding it is taken out of the digest and never tokenized.
"""

from __future__ import annotations

from .._core import STATUS_HEADER, STATUS_VALUE, message_digest  # noqa: F401

