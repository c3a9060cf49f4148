"""Reading mail sources: directory trees, Maildirs, mbox files, single files, stdin.

`read_messages(path)` yields every message found under a path as raw bytes
with an origin string (the file path, `FILE#N` for the Nth message of an
mbox, `-` for stdin).  Anything that cannot be read is recorded in the
`skipped` list the caller passes and reading goes on.
"""

from __future__ import annotations

import io
import os
import stat
import sys

from .._core import is_mbox_from_line  # the separator rule: core/src/mail/mbox.rs
from ..errors import InputError
from ..files import NotRegular, open_regular
from ..record import Record

TYPE_CHECKING = False  # mypy reads this name as true; `re` and collections stay unimported until used
if TYPE_CHECKING:
    import re
    from collections.abc import Iterator

# Bytes of one message that are read; the rest is ignored.  Mail this large is
# attachments, and a cap keeps a hostile 1 GB message from costing 1 GB.
MAX_MESSAGE_BYTES = 10 * 1024 * 1024


class _Pattern:
    """A regular expression compiled at its first use.  Standard input, a mail
    filter's one message, needs none, and `import re` is 10 ms of a `classify
    --server` or `learn --server` client's start (python -X importtime; see
    BENCHMARKS.md, "Online through the command line")."""

    def __init__(self, pattern: bytes) -> None:
        self._pattern = pattern
        self._compiled: re.Pattern[bytes] | None = None

    def __getattr__(self, name: str):
        if self._compiled is None:
            import re

            self._compiled = re.compile(self._pattern)
        return getattr(self._compiled, name)


# A header field's name: printable ASCII but the colon (RFC 5322 2.2).
_FIELD_NAME_BYTES = bytes(range(0x21, 0x7F)).replace(b":", b"")


class RawMessage(Record):
    __slots__ = ("origin", "data")
    _frozen = True
    origin: str
    data: bytes


class Skipped(Record):
    __slots__ = ("origin", "reason")
    _frozen = True
    origin: str
    reason: str


def looks_like_mail(data: bytes) -> bool:
    """True when the first line is a header field or an mbox From_ line."""
    first = data.lstrip(b"\r\n")[:1000]
    if first.startswith(b"From "):
        return True
    # A field name, blanks, then a colon (without `re`: see _Pattern).
    name, colon, _ = first.partition(b":")
    name = name.rstrip(b" \t")
    return bool(colon and name) and not name.translate(None, _FIELD_NAME_BYTES)


def read_messages(path: str, skipped: list[Skipped], max_bytes: int = MAX_MESSAGE_BYTES,
                  newer_than: float | None = None) -> Iterator[RawMessage]:
    """Every message under `path`; raises InputError only if `path` itself is missing.
    `newer_than`: only files (single messages, mboxes) modified after this time."""
    if path == "-":
        yield RawMessage("-", read_stdin(max_bytes))
        return
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"no such file or directory: {display(path)}") from None
    except OSError as error:
        raise InputError(f"cannot read {display(path)}: {error.strerror or error}") from None
    if stat.S_ISDIR(info.st_mode):
        yield from _read_tree(path, skipped, max_bytes, newer_than)
    else:
        yield from _read_file(path, skipped, max_bytes, newer_than)


# What `read_stdin` reads past its cap and throws away, so that the writer
# of a pipe (procmail) finishes its write instead of dying of SIGPIPE; past
# this much the input is not a message but a stream (`cat /dev/zero |`),
# and reading stops.
DRAIN_LIMIT = 256 * 1024 * 1024


def read_stdin(max_bytes: int | None = MAX_MESSAGE_BYTES) -> bytes:
    """One message from standard input, at most `max_bytes` of it (None: all).

    Standard input must be a file, a pipe or a socket: a terminal, a
    directory or a device (/dev/zero never ends) is an InputError at once.
    """
    from ..files import stdin_problem

    stream = sys.stdin
    if stream is None or stream.closed:
        raise InputError("standard input is closed; give a message file or pipe one in")
    problem = stdin_problem(stream.fileno())
    if problem:
        raise InputError(f"{problem}; give a message file or pipe one in")
    try:
        data = stream.buffer.read(-1 if max_bytes is None else max_bytes)
        # Drain what is past the cap so the writer of a pipe does not get SIGPIPE.
        drained = 0
        while max_bytes is not None and drained < DRAIN_LIMIT:
            block = stream.buffer.read1(1 << 16)  # type: ignore[union-attr]  # stdin's buffer is a BufferedReader
            if not block:
                break
            drained += len(block)
    except (OSError, ValueError) as error:  # EBADF when the descriptor was closed
        raise InputError(f"standard input is closed or unreadable ({getattr(error, 'strerror', None) or error}); "
                         "give a message file or pipe one in") from None
    return data


def is_maildir(path: str) -> bool:
    return os.path.isdir(os.path.join(path, "cur")) or os.path.isdir(os.path.join(path, "new"))


def message_files(top: str, skipped: list[Skipped]) -> Iterator[str]:
    """The files under a directory that hold mail, in sorted order.

    Directory symlinks are not followed (no loops); hidden entries are not
    mail.  In a Maildir only cur/ and new/ hold messages: tmp/ has deliveries
    in progress and the root has the server's own files (dovecot-uidlist,
    subscriptions, maildirfolder); its Maildir++ subfolders are hidden.
    """
    def on_error(error: OSError) -> None:
        skipped.append(Skipped(display(error.filename or top), error.strerror or str(error)))

    for directory, subdirectories, files in os.walk(top, onerror=on_error):
        if is_maildir(directory):
            subdirectories[:] = [d for d in ("cur", "new") if d in subdirectories]
            continue
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith("."))
        for name in sorted(files):
            if not name.startswith("."):
                yield os.path.join(directory, name)


def _read_tree(top: str, skipped: list[Skipped], max_bytes: int,
               newer_than: float | None = None) -> Iterator[RawMessage]:
    for path in message_files(top, skipped):
        yield from _read_file(path, skipped, max_bytes, newer_than)


def _read_file(path: str, skipped: list[Skipped], max_bytes: int,
               newer_than: float | None = None) -> Iterator[RawMessage]:
    try:
        # A FIFO or device would block or never end; only plain files are
        # mail.  Checked on the open descriptor (opened without blocking), so
        # a file swapped for a FIFO after a directory was listed is refused too.
        with open_regular(path, buffering=0) as raw:
            info = os.fstat(raw.fileno())
            if newer_than is not None and info.st_mtime <= newer_than:
                return  # read by an earlier run (learn --since-stamp)
            whole = _read_whole(raw, info.st_size)
            if whole is None or _starts_mbox(whole):
                message = None if whole is None else _one_message(whole)
                if message is not None:
                    yield RawMessage(path, message[:max_bytes])
                    return
                raw.seek(0)
                handle = io.BufferedReader(raw)
                if whole is not None or _is_mbox(handle):
                    yield from _read_mbox(path, handle, skipped, max_bytes)
                    return
                data = _read_capped(handle, max_bytes)
            else:
                data = whole[:max_bytes]
    except NotRegular:
        skipped.append(Skipped(display(path), "not a regular file"))
        return
    except OSError as error:
        skipped.append(Skipped(display(path), error.strerror or str(error)))
        return
    if not data.strip():
        skipped.append(Skipped(display(path), "empty file"))
        return
    yield RawMessage(path, data)


def _read_whole(raw, size: int) -> bytes | None:
    """The whole of a file under _BLOCK bytes, in one read of what fstat
    said it holds (a message file: mail is read a file at a time, and the
    buffered reads, seek and 1 MB block of the general path cost more than
    the read itself); None, the file at its start, for a larger file or one
    that grew past that since."""
    if size >= _BLOCK:
        return None
    # One byte more than fstat said, read until the file ends: a local file
    # gives it all in one read, but a network or FUSE file system may return
    # less before its end, and a message cut there would be read as whole.
    data = raw.read(size + 1)
    while len(data) <= size:
        piece = raw.read(size + 1 - len(data))
        if not piece:
            return data
        data += piece
    # It grew since: read on, as far as a block.
    while 0 < len(data) < _BLOCK:
        piece = raw.read(_BLOCK - len(data))
        if not piece:
            return data
        data += piece
    raw.seek(0)
    return None


def _read_capped(handle, max_bytes: int) -> bytes:
    """handle.read(max_bytes), asking for no more than the file holds:
    BufferedReader.read(n) allocates n bytes before it reads, so a 10 MB cap
    made every message a fresh 10 MB mapping (2.5 times the reading of a
    bulk run).  A file that grew since its size was read is read on."""
    size = os.fstat(handle.fileno()).st_size
    data = handle.read(min(max_bytes, size + 1))
    if size < len(data) < max_bytes:
        data += handle.read(max_bytes - len(data))
    return data


def _is_mbox(handle) -> bool:
    """The first non-blank line is a From_ separator; leaves the handle at 0."""
    head = handle.read(4096)
    handle.seek(0)
    return _starts_mbox(head)


def _starts_mbox(data: bytes) -> bool:
    """_is_mbox of a file that starts with `data`."""
    first = data[:4096].lstrip(b"\r\n").split(b"\n", 1)[0]
    return is_mbox_from_line(first)


# Lines that may separate messages; is_mbox_from_line decides.  Splitting whole
# blocks with this (in C) instead of looping over lines reads the
# spamassassin corpus (every file starts with a From_ line) 4 times faster.
_SEPARATOR = _Pattern(rb"(?m)^From [^\n]*(?:\n|$)")
_ESCAPED_FROM_LINES = _Pattern(rb"(?m)^>(>*From )")
_BLOCK = 1 << 20


def _one_message(data: bytes) -> bytes | None:
    """The message of a whole file that is one From_ line and one message
    (what procmail and the SpamAssassin corpus write), found without `re`;
    None when the file may hold more (a line starting "From " after the
    first, or an escaped ">From " anywhere): _read_mbox's expressions decide
    then.  A mail filter's single message then costs no `import re`, about
    a fifth of a cold classify (python -X importtime)."""
    if not data.startswith(b"From "):
        return None
    first_end = data.find(b"\n") + 1
    if not first_end or data.find(b"\nFrom ", first_end - 1) >= 0 or data.find(b">From ") >= 0:
        return None
    return data[first_end:]


def _read_mbox(path: str, handle, skipped: list[Skipped], max_bytes: int) -> Iterator[RawMessage]:
    pieces: list[bytes] = []
    room = max_bytes
    number = 0

    def take(piece: bytes) -> None:
        nonlocal room
        if room > 0 and piece:
            pieces.append(piece[:room])
            room -= len(pieces[-1])

    def message() -> bytes:
        # mboxrd: one level of ">" was added to From lines on writing.
        return _ESCAPED_FROM_LINES.sub(rb"\1", b"".join(pieces))

    carry = b""
    while True:
        block = handle.read(_BLOCK)
        data = carry + block
        carry = b""
        if block:
            # Only whole lines are searched for separators; the partial last
            # line waits for the next block (unless it alone is huge).
            cut = data.rfind(b"\n") + 1
            if cut or len(data) < max_bytes:
                data, carry = data[:cut], data[cut:]
        position = 0
        for match in _SEPARATOR.finditer(data):
            if not is_mbox_from_line(match.group()):
                continue
            take(data[position:match.start()])
            if number:
                yield RawMessage(f"{path}#{number}", message())
            elif b"".join(pieces).strip():
                skipped.append(Skipped(display(path), "text before the first From_ line of an mbox"))
            number += 1
            pieces, room = [], max_bytes
            position = match.end()
        take(data[position:])
        if not block and not carry:
            break
    if number:
        # A file holding one message after a From_ line is a message file
        # (procmail and the SpamAssassin corpus write them), named by its path.
        yield RawMessage(path if number == 1 else f"{path}#{number}", message())


def count_messages(path: str) -> int:
    """How many messages `read_messages` will yield, about (for progress bars)."""
    if path == "-":
        return 1
    if os.path.isdir(path):
        return sum(_count_file(p) for p in message_files(path, []))
    return _count_file(path)


def _count_file(path: str) -> int:
    try:
        with open_regular(path) as handle:
            if not _is_mbox(handle):
                return 1
            return sum(1 for line in handle if line.startswith(b"From ") and is_mbox_from_line(line))
    except OSError:
        return 1


def display(path: str) -> str:
    """A path as text that can be printed, whatever bytes its name holds."""
    return os.fsencode(path).decode("utf-8", "replace") if isinstance(path, str) else str(path)
