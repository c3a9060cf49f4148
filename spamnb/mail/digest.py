"""A message's identity for "have I learned this before?", and the status
fields spamnb writes.

The digest (core/src/mail/digest.rs) is SHA-256 (first 8 bytes) of the
message with what delivery changes taken out: the mbox From_ envelope line,
CRLF line ends, and our own status header, so a message learned straight
from a folder and the same message after `spamnb filter` added its header
are one message.  The status fields spamnb writes (core/src/mail/status.rs:
STATUS_HEADER and the others, and a field of any name holding the value
`spamnb filter` writes) are taken out of the digest and never tokenized.
"""

from __future__ import annotations

from .._core import STATUS_HEADER, message_digest  # noqa: F401

