"""Errors the library raises on purpose, and the exit status each maps to.

The statuses are chosen so a mail-server script can tell them apart from the
bogofilter-style verdict codes (0 spam, 1 ham, 2 unsure) that `classify
--exit-code` uses; 3 is also bogofilter's own "error" status, so a procmail
recipe written for bogofilter treats a broken model the same way.
"""

EXIT_OK = 0
EXIT_MODEL_ERROR = 3     # model missing, unreadable, corrupt, foreign or too new; a file that cannot be written
EXIT_INPUT_ERROR = 4     # a path given does not exist, or nothing in it could be read
EXIT_USAGE = 64          # bad command line (EX_USAGE from sysexits.h)
EXIT_INTERNAL = 70       # a bug in spamnb (EX_SOFTWARE); the message asks for a report
EXIT_TEMPFAIL = 75       # filter passed the message through untouched, or no server answered; retry
EXIT_INTERRUPTED = 130   # SIGINT, as shells report it


class SpamnbError(Exception):
    """Base class: a failure that is reported as one line, never a traceback."""

    exit_status = EXIT_INTERNAL


class ModelError(SpamnbError):
    """The model file cannot be used: missing, corrupt, foreign or too new."""

    exit_status = EXIT_MODEL_ERROR


class FileError(SpamnbError):
    """A file spamnb writes (or the folder it goes in) cannot be written: a
    missing folder, a read-only file system, a full disk, no permission.  The
    model's own status: the command did not do its work, and the path says where."""

    exit_status = EXIT_MODEL_ERROR


def file_error(path, error: OSError, doing: str = "write") -> FileError:
    """`cannot write PATH: No space left on device`, from an OSError."""
    return FileError(f"cannot {doing} {path}: {error.strerror or error}")


class InputError(SpamnbError):
    """Mail to read cannot be found or none of it can be read."""

    exit_status = EXIT_INPUT_ERROR


class OptionError(SpamnbError):
    """Options that do not fit together or a value out of range."""

    exit_status = EXIT_USAGE


class BusyError(SpamnbError):
    """The model stayed locked by another writer past the wait allowed (learn --lock-wait)."""

    exit_status = EXIT_TEMPFAIL


class ServerError(SpamnbError):
    """`classify --server`: no server at the socket, or it refused or did not answer.

    EX_TEMPFAIL, as for `filter`: a mail system retries later, and a procmail
    recipe delivers the message normally.
    """

    exit_status = EXIT_TEMPFAIL


def os_error_line(error: OSError) -> str:
    """The one line for an OSError that reached the top: the file it names, or
    standard output.  Every file spamnb writes names itself in its errors, so
    a full disk or an I/O error without a name is the output's; standard
    output is then pointed at /dev/null, so the exit does not fail on it again."""
    import errno
    import os
    import sys

    where = error.filename
    if where is None and error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS):
        where = "standard output"
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, sys.stdout.fileno())
            os.close(null)
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
    reason = error.strerror or str(error)
    return f"cannot write {where}: {reason}" if where else reason


def printable(text: str) -> str:
    """`text` with each character a terminal or log would not show as itself
    (line breaks, tabs, escape sequences, bidi and other format characters,
    an undecodable byte of a file name) written as a Python escape: a path
    or a client's string can then neither break a one-line message in two
    nor forge what a reader sees.  Printable text, Chinese included, is
    left as it is.  Linear: one pass."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else _escaped(char) for char in text)


def _escaped(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte os.fsdecode could not decode (surrogate escape): the byte
        return f"\\x{code - 0xDC00:02x}"
    return repr(char)[1:-1]


def say_on_stderr(message: object, program: str = "spamnb") -> None:
    """`program: message` on standard error, as one line: every error and
    note spamnb prints goes through here, so what came from outside in it
    (a path, a setting, a header name, a client's bytes) is escaped once
    (printable), wherever the message was composed."""
    import sys

    print(f"{program}: {printable(str(message))}", file=sys.stderr)


def reported(error: BaseException) -> int:
    """Say `error`, which ended a command, on standard error in one line, and
    return the status the process exits with: a SpamnbError's own; 130 when
    interrupted; 3 for an OSError (a file written, or standard output, that
    failed under spamnb); 70 for anything else, a bug.  With SPAMNB_DEBUG set,
    a bug or an OSError is raised again, for its traceback."""
    import os

    if isinstance(error, SpamnbError):
        say_on_stderr(error)
        return error.exit_status
    if isinstance(error, KeyboardInterrupt):
        say_on_stderr("interrupted")
        return EXIT_INTERRUPTED
    if os.environ.get("SPAMNB_DEBUG"):
        raise error
    if isinstance(error, OSError):
        say_on_stderr(os_error_line(error))
        return EXIT_MODEL_ERROR
    say_on_stderr(f"internal error: {type(error).__name__}: {error} "
                  "(set SPAMNB_DEBUG=1 for the traceback, and please report it)")
    return EXIT_INTERNAL
