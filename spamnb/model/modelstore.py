"""A model file among its writers: each replaces it whole and atomically,
or appends one journal record, holding the writers' lock; nothing a killed
writer leaves behind stays, and a write that drops part of a model keeps
the old one as a backup.  Readers take no lock (modelread.py): they see the
old file or the new one, whole.
"""

from __future__ import annotations

import os

from .._core import lock_file, unlock_file  # flock(2): the fcntl module would be one more library to load
from ..errors import FileError, ModelError

TYPE_CHECKING = False  # mypy reads this name as true; typing stays unimported on the scoring path
if TYPE_CHECKING:
    from typing import TextIO


def check_writable(path: str | os.PathLike) -> str:
    """Fail early, with a ModelError, if a model cannot be written at `path`.

    Run before a long training run rather than after it.  Returns the real
    path: a symlinked model is replaced at its target, not turned into a file.
    A missing folder is not created (FileError): it is a typo far more often
    than a wish, and a model written where nobody looks is lost; the default
    model's folder is made by the command line (app/paths.py).
    (os.path, not pathlib: `learn` calls this for its lock, and pathlib with
    urllib.parse and ipaddress is 6 ms of a fresh process.)
    """
    text = os.fspath(path)
    if text.endswith(os.sep) or os.path.isdir(text):
        raise ModelError(f"{text} is a directory; give the model a file name")
    real = os.path.realpath(text)
    directory = os.path.dirname(real)
    if not os.path.isdir(directory):
        what = "is not a folder" if os.path.exists(directory) else "does not exist"
        raise FileError(f"cannot write {text}: its folder {directory} {what}")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise ModelError(f"cannot write a model in {directory}: {_unwritable(directory)}")
    return real


def _unwritable(directory) -> str:
    """Why a folder os.access says cannot be written to cannot: its file system
    is mounted read-only, or permission is missing."""
    try:
        if os.statvfs(directory).f_flag & os.ST_RDONLY:
            return "read-only file system"
    except OSError:
        pass
    return "permission denied"


def atomic_write(path: str | os.PathLike, chunks) -> None:
    path = check_writable(path)
    from ..files import replace_atomically

    def write(handle) -> None:
        for chunk in chunks:
            handle.write(chunk)

    # Keeps the permissions an admin gave an existing model (say, group
    # readable for the MTA); a new model is private (0600), since its
    # vocabulary is a digest of the owner's mail.
    try:
        replace_atomically(path, write)
    except OSError as error:
        raise ModelError(f"cannot write model {path}: {error.strerror or error}; "
                         "the previous model, if any, is unchanged") from None
    _sweep_stale_temporaries(path)


# A writer killed by SIGKILL (or a power cut) leaves its temporary file; a
# write still in progress is seconds old.  An hour is far past any write.
STALE_TEMPORARY_SECONDS = 3600


def _sweep_stale_temporaries(path) -> None:
    """Remove `.MODEL.*.tmp` files (and training's folders) that killed writers left beside `path`."""
    import time

    directory, name = os.path.split(os.fspath(path))
    prefix = f".{name}."
    try:
        entries = list(os.scandir(directory or "."))
    except OSError:
        return
    for entry in entries:
        if not (entry.name.startswith(prefix) and entry.name.endswith(".tmp")):
            continue
        try:
            age = time.time() - entry.stat(follow_symlinks=False).st_mtime
            if entry.is_file(follow_symlinks=False) and age > STALE_TEMPORARY_SECONDS:
                os.unlink(entry.path)
            elif entry.is_dir(follow_symlinks=False) and age > 24 * STALE_TEMPORARY_SECONDS:
                # A killed training run's spill or build folder.  A day: a folder's time
                # changes when files come and go in it, not while one is written.
                import shutil

                shutil.rmtree(entry.path, ignore_errors=True)
        except OSError:
            pass  # someone else's file, or already gone: not ours to worry about


def keep_backup(path: str | os.PathLike) -> str:
    """Keep the model at `path` as it is now as `MODEL.bak` (replacing an older
    backup) before a write that drops part of it (prune); returns its name.

    A hard link: the model is about to be replaced by rename, so the link is
    the old file itself, kept at no cost; a copy where links are refused.
    """
    source = os.fspath(path)
    backup = source + ".bak"
    temporary = f"{backup}.{os.getpid()}.tmp"
    try:
        try:
            os.link(source, temporary)
        except OSError:
            import shutil

            shutil.copy2(source, temporary)
        os.replace(temporary, backup)
    except OSError as error:
        from ..files import discard

        discard(temporary)
        raise ModelError(f"cannot keep a backup of {source} as {backup}: {error.strerror or error}; "
                         "the model is unchanged") from None
    return backup


def lock_path_of(path: str | os.PathLike) -> str:
    """Where the writers of the model at `path` take their lock: `.MODEL.lock` beside it."""
    directory, name = os.path.split(os.fspath(path))
    return os.path.join(directory, f".{name}.lock")


class locked:
    """`with locked(path):` holds an exclusive lock for a read-modify-write
    of the model at `path`.

    The lock is on a hidden sidecar file (`.MODEL.lock`, kept: removing it
    would let a writer lock the unlinked file while another locks a new one),
    not the model, because the model is replaced by rename and a lock on the
    old inode would not stop a writer that opened the new one.  Hidden, so a
    folder listing shows the model alone.  Readers take no lock: they see the old
    or the new file whole, never half of one.
    """

    def __init__(self, path: str | os.PathLike, wait: float | None = None) -> None:
        self.path = path
        self.handle: TextIO | None = None
        self.wait = wait  # seconds to wait for another writer; None: as long as it takes

    def __enter__(self) -> None:
        lock_path = lock_path_of(check_writable(self.path))
        try:
            # Created if missing; never blocks on a FIFO put there instead.
            descriptor = os.open(lock_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC,
                                 0o666)
        except OSError as error:
            raise ModelError(f"cannot lock {lock_path}: {error.strerror or error}") from None
        import stat

        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            os.close(descriptor)
            raise ModelError(f"cannot lock {lock_path}: it is not a regular file")
        self.handle = os.fdopen(descriptor, "a")
        if self.wait is None:
            lock_file(self.handle.fileno(), wait=True)
            return
        import time

        ends = time.monotonic() + self.wait
        while not lock_file(self.handle.fileno(), wait=False):
            if time.monotonic() >= ends:
                self.handle.close()
                from ..errors import BusyError

                raise BusyError(f"{os.fspath(self.path)} is locked by another writer (waited "
                                f"{self.wait:g} s, --lock-wait); try again later")
            time.sleep(0.05)

    def __exit__(self, *exception) -> None:
        assert self.handle is not None  # __enter__ opened it
        try:
            unlock_file(self.handle.fileno())
        finally:
            self.handle.close()


def append_record(path: str | os.PathLike, record: bytes, identity: tuple[int, int]) -> None:
    """Append one journal record to the model at `path` (the caller holds its lock).

    `identity` (device, inode) is the file the caller read: if the model was
    replaced since, nothing is written and ModelError says so.  One write(),
    then fsync: a reader sees the record whole or not at all (journal.py).
    """
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
    except OSError as error:
        raise ModelError(f"cannot write model {path}: {error.strerror or error}") from None
    try:
        info = os.fstat(descriptor)
        if (info.st_dev, info.st_ino) != tuple(identity):
            raise ModelError(f"model {path} was replaced while learning; learn again")
        written = os.write(descriptor, record)
        if written != len(record):
            raise ModelError(f"cannot write model {path}: short write ({written} of {len(record)} bytes)")
        os.fsync(descriptor)
    except OSError as error:
        raise ModelError(f"cannot write model {path}: {error.strerror or error}; "
                         "the model is as it was before this learn") from None
    finally:
        os.close(descriptor)
