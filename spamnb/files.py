"""Opening files that someone else may have put in our way.

Every file spamnb reads (the model, settings, stop words, an export, mail,
standard input) is checked to be what it should be before a byte of it is
trusted: a regular file (standard input: a file, a pipe or a socket).  A
path is opened with O_NONBLOCK and then checked with fstat on the open
descriptor, so a FIFO put where the model or the settings should be is
refused at once instead of hanging the process in open() until a writer
comes, and nothing can swap the file between the check and the read.

Standard library only (os, stat): the scoring path imports this.
"""

from __future__ import annotations

import os
import stat

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)


class NotRegular(OSError):
    """The path names something other than a regular file (a FIFO, device, socket, directory)."""


def kind(mode: int) -> str:
    """What a file is, in words, for error messages."""
    for test, word in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISREG, "a regular file")):
        if test(mode):
            return word
    return "not a regular file"


def open_regular(path, mode: str = "rb", **text_options):
    """`open(path, mode)` for reading, refusing anything but a regular file
    without blocking: raises NotRegular (an OSError) for a FIFO, device,
    socket or directory, and the usual OSError when it cannot be opened."""
    descriptor = os.open(path, _FLAGS)
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(f"{kind(info.st_mode)}, not a regular file")
        # Reads from a regular file never block; clear the flag all the same
        # so the descriptor behaves as open() would make it.
        if _FLAGS & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(descriptor, True)
        handle = os.fdopen(descriptor, mode, **text_options)
    except BaseException:
        os.close(descriptor)
        raise
    return handle


def read_regular(path, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; ValueError when larger."""
    with open_regular(path) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"larger than {limit:,} bytes")
    return data


def stdin_problem(descriptor: int = 0) -> str | None:
    """Why standard input cannot hold a message to read, or None when it can:
    it must be a regular file, a pipe or a socket (or /dev/null, an empty
    message).  A terminal would wait for typing, a directory cannot be read,
    a device such as /dev/zero never ends."""
    try:
        info = os.fstat(descriptor)
    except OSError as error:
        return f"standard input is closed ({error.strerror or error})"
    mode = info.st_mode
    if stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return None
    if stat.S_ISCHR(mode):
        try:
            if os.isatty(descriptor):
                return "standard input is a terminal"
            if info.st_rdev == os.stat(os.devnull).st_rdev:
                return None
        except OSError:
            pass
    return f"standard input is {kind(mode)}, not a file or pipe"


def write_text_output(path: str, produce) -> None:
    """Call `produce(stream)` to write UTF-8 text to `path`, or to standard
    output for `-`, whatever the locale says.

    A regular file (or a new one) is written to a temporary file beside it,
    flushed to disk and renamed over it, so a failure leaves what was there;
    a device or FIFO already at the path (/dev/stdout, a pipe) is written
    into, never replaced.  A missing folder, read-only file system, full
    disk or missing permission raises FileError naming the path.
    """
    import io

    from .errors import FileError, file_error

    if path == "-":
        import sys

        stream = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", errors="surrogateescape", newline="\n")
        try:
            produce(stream)
            stream.flush()
        except OSError as error:
            raise file_error("standard output", error) from None
        finally:
            stream.detach()  # closing the wrapper must not close stdout
        return
    try:
        existing = os.stat(path)
    except FileNotFoundError:
        existing = None
    except OSError as error:
        raise file_error(path, error) from None
    try:
        if existing is not None and not stat.S_ISREG(existing.st_mode):
            if stat.S_ISDIR(existing.st_mode):
                raise FileError(f"cannot write {path}: it is a directory")
            with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="\n") as stream:
                produce(stream)
            return
        directory = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(directory):
            raise FileError(f"cannot write {path}: its folder {directory} does not exist")
    except OSError as error:
        raise file_error(path, error) from None

    def write(handle) -> None:
        with open(handle.fileno(), "w", encoding="utf-8", errors="surrogateescape", newline="\n",
                  closefd=False) as stream:
            produce(stream)

    try:
        replace_atomically(path, write)
    except OSError as error:
        raise file_error(path, error) from None


def write_all(descriptor: int, data: bytes | memoryview) -> None:
    """Write all of `data` to a descriptor, however many writes it takes; one
    that is non-blocking (a pipe inherited so) is waited on when full."""
    view = memoryview(data)
    while view:
        try:
            written = os.write(descriptor, view)
        except BlockingIOError:
            import select

            select.select([], [descriptor], [])
            continue
        view = view[written:]


def discard(path) -> None:
    """Remove a file of ours that is no longer wanted, if it is there."""
    try:
        os.unlink(path)
    except OSError:
        pass


def replace_atomically(path, write) -> None:
    """Put a new file at `path` whole or not at all: `write(handle)` fills a
    temporary file beside it (binary), which is flushed to disk and renamed
    over `path` (the folder synced after), keeping the permissions of the
    file it replaces (a new one is private, 0600).  On any failure the temporary file is removed, the
    old file is untouched, and the error is raised as it came."""
    import tempfile  # writers only: 8 ms with shutil a scoring process need not pay

    directory, name = os.path.split(os.path.abspath(path))
    descriptor, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.chmod(temporary, os.stat(path).st_mode & 0o7777)
        except FileNotFoundError:
            pass
        os.replace(temporary, path)
    except BaseException:
        discard(temporary)
        raise
    try:
        directory_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(directory_fd)  # make the rename itself durable
    except OSError:
        pass
    finally:
        os.close(directory_fd)
