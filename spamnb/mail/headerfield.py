"""One header field set at the end of a message's header block, its older
copies taken out: what `filter` and spamd's PROCESS/HEADERS do to a message.

Where the header goes: line ends are the message's own (CRLF, LF, or bare CR
when the first line ends so), per line.  The header block is read as the
strictest parser reads it, a run of `name:` fields (with their folded
continuation lines) from the top, and the new field goes at the end of that
run, with the line ending of the field before it: so every reader that sees
any header sees it, whether the block ends with an empty line, a line
holding only blanks, a line that is not a field, or the end of the message.
(When a line holding only blanks ends the run, the new field goes before
the run's last field instead: some readers take that line for a fold of
the field above it, which must not be the new one.)
Stale copies of the field (a sender's forgery) are removed from the header
section, up to the first empty line; the body, after it, is never touched.
"""

from __future__ import annotations

import re

from .digest import STATUS_HEADER

_FIELD_NAME = re.compile(r"[\x21-\x39\x3b-\x7e]{1,200}")
_FIELD = rb"[\x21-\x39\x3b-\x7e]+[ \t]*:"


def field_name_problem(name: str) -> str | None:
    """Why `name` cannot be a header field name (RFC 5322: printable ASCII
    but the colon, no blanks), or None."""
    if not _FIELD_NAME.fullmatch(name or ""):
        return (f"{name!r} is not a header field name: printable ASCII only, no blank, colon or "
                "line break, at most 200 characters")
    return None


class HeaderBlockUnfinished(ValueError):
    """The header block does not end within the bytes read."""


def _layout(end: bytes):
    """Regular expressions for a message whose lines end with `end` (b"\\n",
    CRLF included, or b"\\r"): the leading run of fields, and a field line
    with its continuations."""
    other = rb"[^\r]" if end == b"\r" else rb"[^\n]"
    # A continuation line starts with a blank and holds something else: a
    # line of blanks alone ends the run (some readers take it for the
    # empty line).  Every line is whole, its end included.
    continuation = rb"[ \t]+[^ \t\r\n]" + other + rb"*" + end
    run = re.compile(rb"(?:From " + other + rb"*" + end + rb")?(?:" + _FIELD + other + rb"*" + end
                     + rb"(?:" + continuation + rb")*)*")
    return run, continuation, other


def with_status_header(raw: bytes, value: str, name: str = STATUS_HEADER, complete: bool = True) -> bytes:
    """`raw` with `name: value` as the last field of its header block and
    older copies of the field taken out of the header section.

    `complete`: `raw` is the whole message; otherwise it is the first part
    of one, and HeaderBlockUnfinished is raised when the header block does
    not end within it (the caller then passes the message through).
    """
    first_end = re.search(rb"[\r\n]", raw)
    if first_end is None or raw[first_end.start():first_end.start() + 1] == b"\n" or \
            raw[first_end.start():first_end.start() + 2] == b"\r\n":
        end = b"\n"
    else:
        end = b"\r"  # bare CR line ends (old Mac mail)
    run, continuation, other = _layout(end)
    run_end = run.match(raw).end()
    rest = raw[run_end:]
    next_end = rest.find(end)
    field_line = re.compile(_FIELD + rb"|[ \t]+[^ \t\r\n]")
    unfinished_field = False
    if next_end < 0:
        # The message (or what was read of it) ends inside this line.
        if not complete:
            raise HeaderBlockUnfinished("the header block does not end within the bytes read")
        unfinished_field = bool(rest) and field_line.match(rest) is not None
        if unfinished_field or not rest:
            run_end = len(raw)
    head = raw[:run_end]
    # The line end of the field before the new one, else the message's first, else LF.
    if head.endswith(b"\r\n"):
        newline = b"\r\n"
    elif head.endswith(end):
        newline = end
    elif first_end is not None:
        newline = b"\r\n" if end == b"\n" and raw[first_end.start():first_end.start() + 2] == b"\r\n" else end
    else:
        newline = b"\n"
    # The header section, as RFC 5322 and procmail read it: up to the first
    # empty line.  Stale copies are removed there and nowhere else.
    empty = re.compile(rb"(?:(?<=\n)|\A)\r?\n" if end == b"\n" else rb"(?:(?<=\r)|\A)\r").search(raw, run_end)
    section_end = empty.start() if empty is not None else run_end
    line_start = rb"(?m:^)" if end == b"\n" else rb"(?:(?<=\r)|\A)"
    stale = re.compile(line_start + re.escape(name.encode("ascii")) + rb"[ \t]*:" + other + rb"*(?:" + end
                       + rb"|\Z)(?:" + continuation + rb")*", re.IGNORECASE)
    before = stale.sub(b"", head)
    if before and not before.endswith(end):
        before += newline  # the last field ended the message without a line end
    between = stale.sub(b"", raw[run_end:section_end])
    line = f"{name}: {value}".encode("ascii", "replace") + newline
    if raw.startswith((b" ", b"\t"), run_end):
        # The run ends at a line of blanks only, which a reader that does
        # not take it for the empty line (Python's email, mime.read_headers)
        # reads as a fold of the field above it: after the run, the new
        # field would take it into its value.  Before the run's last field,
        # that fold stays that field's, as it was, for every reader.
        from collections import deque

        last = deque(re.finditer(line_start + _FIELD, before), maxlen=1)  # one match held, however many fields
        if last:
            start = last[0].start()
            return before[:start] + line + before[start:] + between + raw[section_end:]
    return before + line + between + raw[section_end:]
