"""The model file: layout, atomic writing, and checked reading.

Layout (all integers little-endian):

    prefix   32 bytes  magic b"SPAMNB\\x1a\\n", format version u32, flags u32,
                       metadata length u64, CRC-32 of metadata u32,
                       CRC-32 of body u32
    metadata           UTF-8 JSON: options, message counts, bias, cutoffs and
                       a table of sections {name: offset, length, dtype, shape,
                       codec, crc} (offsets relative to the body), padded to 8
    body               the sections, each 8-byte aligned (`body_length` bytes)
    journal            records appended by `learn` (spamnb/model/journal.py), if any

Every per-token section is in the order of the tokens' 64-bit keys
(scoring.token_key), which makes the file canonical: the same counts give the
same bytes however they were gathered.  The sections that scoring reads are
stored raw, so a reader maps them and touches only what a message needs:

        keys           u8[V]    sorted token keys
        weights        f4[V]    λ_w
        block_first    u8[B]    the first key of each block of 512 keys
        block_crcs     u4[B]    CRC-32 of each block's keys and weights
        occurrences    u2 or u4[2,V]   N_cw (ham row, spam row): with a journal,
                                scoring computes λ from them (spamnb/model/scorer.py)
        digests, digest_classes u8[M], u1[M]   messages learned (sorted), and as what

The rest, needed to learn, inspect and export, is compressed (codec
"zlib": the array's bytes grouped by significance, then zlib, which stores
small counts in a fraction of their width):

        token_lengths  u4[V]    UTF-8 length of each token
        token_bytes    u1[...]  the tokens, concatenated
        documents      u4[2,V]  D_cw
        last_seen      u4[V]    day number each token was last learned

Checking: the metadata checksum always; a full load (learn, inspect, export)
checks the whole body; classify checks the block index on opening and each
block of keys and weights the first time a message needs it, so a damaged
byte never reaches a score, and opening costs the same for a model of ten
thousand or ten million tokens.

The magic's \\x1a\\n catch a file mangled by a text-mode transfer, as PNG's
do.  Nothing in the file is executed or deserialised into arbitrary Python
objects when it is read: JSON and fixed-type arrays only.
"""

from __future__ import annotations

import fcntl
import mmap
import os
from struct import Struct

# crc32: the core's, several times faster than zlib's over a mapped model
# (and zlib, loaded only to compress or decompress a section).
from .._core import crc32, json_nested_deeper_than  # linear, and spares a model open `import re`
from .. import jsoncodec
from ..errors import FileError, ModelError

TYPE_CHECKING = False  # mypy reads this name as true; typing stays unimported on the scoring path
if TYPE_CHECKING:
    from typing import TextIO

    from .journal import JournalState

MAGIC = b"SPAMNB\x1a\n"
FORMAT_VERSION = 3
READABLE_VERSIONS = (2, 3)
"""Version 3 added the journal (and `body_length`); a version 2 file is a base with none."""
PREFIX = Struct("<8sIIQII")
_ALIGN = 8
_U4_MAX = 2**32 - 1
BLOCK_KEYS = 512
"""Keys per checked block: 4 KiB of keys, 2 KiB of weights."""


def _pad(length: int) -> int:
    return -length % _ALIGN


def _itemsize(dtype: str) -> int:
    return int(dtype[2:]) if dtype[:2] in ("<u", "<f", "<i", "|u", "|i") else 0


def shuffle_bytes(data: bytes, itemsize: int) -> bytes:
    """Byte k of every item together, k = 0..itemsize-1 (Blosc's shuffle):
    the high bytes of small counts are all zero and compress to nothing."""
    if itemsize <= 1:
        return data
    return b"".join(data[k::itemsize] for k in range(itemsize))


def unshuffle_bytes(data: bytes, itemsize: int) -> bytes:
    if itemsize <= 1:
        return data
    count = len(data) // itemsize
    out = bytearray(len(data))
    for k in range(itemsize):
        out[k::itemsize] = data[k * count:(k + 1) * count]
    return bytes(out)


def write_model(path: str | os.PathLike, meta: dict, sections: dict,
                compressed: frozenset = frozenset(), level: int = 6) -> None:
    """Write a model atomically: temp file in the same directory, fsync, rename.

    `sections` maps names to numpy arrays; those named in `compressed` are
    stored with the "zlib" codec at `level`.  A crash or error at any point
    leaves whatever was at `path` before intact.
    """
    import zlib
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    arrays = {name: np.ascontiguousarray(array) for name, array in sections.items()}

    def stored(name: str) -> bytes:
        data = arrays[name].tobytes()
        if name in compressed:
            data = zlib.compress(shuffle_bytes(data, arrays[name].dtype.itemsize), level)
        return data

    # zlib lets go of the GIL: the sections compress side by side (0.8 s of
    # a spamassassin training run on one core before).
    with ThreadPoolExecutor(max(1, len(compressed))) as threads:
        stored_bytes = dict(zip(arrays, threads.map(stored, arrays)))
    table: dict[str, dict] = {}
    offset = 0
    blobs: list[bytes] = []
    for name, array in arrays.items():
        data = stored_bytes[name]
        entry: dict[str, object] = {"dtype": array.dtype.str, "shape": list(array.shape)}
        if name in compressed:
            entry["codec"] = "zlib"
        entry.update(offset=offset, length=len(data), crc=crc32(data))
        table[name] = entry
        blobs.append(data)
        blobs.append(b"\0" * _pad(len(data)))
        offset += len(data) + _pad(len(data))
    body_crc = 0
    for blob in blobs:
        body_crc = crc32(blob, body_crc)
    atomic_write(path, [*_head(meta, table, offset, body_crc), *blobs])


def _head(meta: dict, table: dict, body_length: int, body_crc: int) -> tuple[bytes, bytes]:
    """The prefix and the metadata (with its section table) of a model file."""
    meta = dict(meta, sections=table, body_length=body_length)
    meta_bytes = jsoncodec.dumps(meta, ensure_ascii=False, sort_keys=True).encode("utf-8")
    meta_bytes += b" " * _pad(PREFIX.size + len(meta_bytes))
    return PREFIX.pack(MAGIC, FORMAT_VERSION, 0, len(meta_bytes), crc32(meta_bytes), body_crc), meta_bytes


STREAM_BYTES = 4 << 20


def _read_parts(parts, itemsize: int = 1):
    """The bytes of `parts` (numpy arrays, or paths of files of raw array
    bytes) in order, a piece of at most STREAM_BYTES (whole items) at a time."""
    step = max(itemsize, STREAM_BYTES - STREAM_BYTES % itemsize)
    for part in parts:
        if isinstance(part, str):
            with open(part, "rb") as handle:
                while piece := handle.read(step):
                    yield piece
        else:
            data = memoryview(part.tobytes() if not part.flags.c_contiguous else part).cast("B")
            for start in range(0, len(data), step):
                yield bytes(data[start:start + step])


def write_model_streamed(path: str | os.PathLike, meta: dict, sections: list, compressed: frozenset,
                         scratch: str) -> None:
    """write_model for sections too big to hold: each of `sections` is
    (name, dtype, shape, parts), its array's bytes in `parts` (see
    _read_parts), written a piece at a time.  A compressed section is
    shuffled as write_model does (byte k of every item together) by reading
    its parts once per byte of an item.  The body is put together in a file
    in `scratch` first, since the header, written before it, holds the
    sections' lengths and checksums; the same arrays give the same bytes as
    write_model."""
    import zlib

    import numpy as np

    body_path = os.path.join(scratch, "body")
    table: dict[str, dict] = {}
    offset = body_crc = 0
    with open(body_path, "wb") as body:
        for name, dtype, shape, parts in sections:
            itemsize = np.dtype(dtype).itemsize
            crc = length = 0
            if name in compressed:
                deflate = zlib.compressobj(6)

                # B023: pieces() is consumed in the iteration that defines it, so the loop variables are current
                def pieces():
                    for plane in range(itemsize):  # noqa: B023
                        for piece in _read_parts(parts, itemsize):  # noqa: B023
                            yield deflate.compress(piece[plane::itemsize] if itemsize > 1 else piece)  # noqa: B023
                    yield deflate.flush()  # noqa: B023
            else:
                pieces = lambda: _read_parts(parts, itemsize)  # noqa: E731, B023
            for piece in pieces():
                body.write(piece)
                crc, length = crc32(piece, crc), length + len(piece)
                body_crc = crc32(piece, body_crc)
            padding = b"\0" * _pad(length)
            body.write(padding)
            body_crc = crc32(padding, body_crc)
            entry = {"dtype": np.dtype(dtype).str, "shape": list(shape)}
            if name in compressed:
                entry["codec"] = "zlib"
            entry.update(offset=offset, length=length, crc=crc)
            table[name] = entry
            offset += length + len(padding)

    def chunks():
        yield from _head(meta, table, offset, body_crc)
        yield from _read_parts([body_path])

    try:
        atomic_write(path, chunks())
    finally:
        os.unlink(body_path)


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
    or the new file whole, never half of one.  (A class, not
    contextlib.contextmanager: contextlib is 0.7 ms of a scoring process's start.)
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
            fcntl.flock(self.handle.fileno(), fcntl.LOCK_EX)
            return
        import time

        ends = time.monotonic() + self.wait
        while True:
            try:
                fcntl.flock(self.handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= ends:
                    self.handle.close()
                    from ..errors import BusyError

                    raise BusyError(f"{os.fspath(self.path)} is locked by another writer (waited "
                                    f"{self.wait:g} s, --lock-wait); try again later") from None
                time.sleep(0.05)

    def __exit__(self, *exception) -> None:
        assert self.handle is not None  # __enter__ opened it
        try:
            fcntl.flock(self.handle.fileno(), fcntl.LOCK_UN)
        finally:
            self.handle.close()


class ModelFile:
    """A model file, mapped into memory, with its metadata read and checked."""

    def __init__(self, path: str, data, meta: dict, body_start: int, version: int, body_crc: int,
                 body_length: int) -> None:
        self.path = path
        self.data = data
        self.meta = meta
        self.version = version
        self._body_start = body_start
        self._body_crc = body_crc
        self._body_end = body_start + body_length
        self._journal_state: tuple[JournalState, bool] | None = None
        self.identity: tuple[int, int] | None = None

    @property
    def journal_bytes(self) -> int:
        return len(self.data) - self._body_end

    def journal_view(self) -> memoryview:
        """The journal's bytes: whatever follows the base."""
        return memoryview(self.data)[self._body_end:]

    def use_journal(self, state, torn: bool) -> None:
        """Take the journal as added up by the caller from records it had read
        before (incremental.learn_appending, learning again and again)."""
        self._journal_state = (state, torn)

    def journal(self):
        """The journal added up (journal.JournalState) and whether it ends torn; read once."""
        if self._journal_state is None:
            from .journal import state_of

            self._journal_state = state_of(memoryview(self.data)[self._body_end:])
        return self._journal_state

    @property
    def size(self) -> int:
        return len(self.data)

    def stored(self, name: str) -> memoryview:
        """The section's bytes as stored (compressed ones still compressed)."""
        entry = self.meta["sections"][name]
        start = self._body_start + entry["offset"]
        return memoryview(self.data)[start:start + entry["length"]]

    def check_section(self, name: str) -> None:
        if crc32(self.stored(name)) != self.meta["sections"][name].get("crc", -1):
            raise ModelError(f"model {self.path} is corrupt (checksum mismatch in {name}); "
                             "restore a backup or retrain")

    def decoded(self, name: str) -> bytes | memoryview:
        """The section's array bytes, decompressed if it is stored compressed."""
        entry = self.meta["sections"][name]
        data: bytes | memoryview = self.stored(name)
        if entry.get("codec") == "zlib":
            expected = _itemsize(entry["dtype"])
            for extent in entry["shape"]:
                expected *= extent
            import zlib

            # Never more than the table says (check_layout bounded that):
            # a block that would expand further is refused having cost at
            # most its stated size, not what it expands to.
            inflate = zlib.decompressobj()
            try:
                out = inflate.decompress(data, expected + 1)
            except zlib.error:
                raise ModelError(f"model {self.path} is corrupt (section {name} does not "
                                 "decompress); restore a backup or retrain") from None
            if len(out) != expected or not inflate.eof or inflate.unconsumed_tail:
                raise _not_usable(self.path, f"section {name} does not decompress to its stated size")
            data = unshuffle_bytes(out, _itemsize(entry["dtype"]))
        return data

    def array(self, name: str):
        """The section as a numpy array (read-only for raw sections)."""
        import numpy as np

        entry = self.meta["sections"][name]
        return np.frombuffer(self.decoded(name), dtype=np.dtype(entry["dtype"])).reshape(entry["shape"])

    def verify(self) -> None:
        """Check the whole body against its checksum (what a full load does)."""
        if crc32(memoryview(self.data)[self._body_start:self._body_end]) != self._body_crc:
            raise ModelError(f"model {self.path} is corrupt (checksum mismatch); restore a backup or retrain")


def read_model(path: str | os.PathLike, verify: bool = True) -> ModelFile:
    """Open a model file and check it; every failure is a one-line ModelError.

    The file is memory-mapped: a reader pays for the pages it touches.  It
    stays valid when a writer replaces the model, because writers rename a
    new file into place and the mapping keeps the old one.  With `verify`
    the whole body is checked against its checksum.
    """
    from ..files import NotRegular, open_regular

    path = os.fspath(path)
    try:
        # Without blocking, and only a regular file: a FIFO at the model path
        # would otherwise hang classify, filter and learn in open().
        with open_regular(path) as handle:
            info = os.fstat(handle.fileno())
            size = info.st_size
            data = mmap.mmap(handle.fileno(), 0, prot=mmap.PROT_READ) if size else b""
    except FileNotFoundError:
        raise ModelError(f"no model at {path}; train one with `spamnb train`") from None
    except IsADirectoryError:
        raise ModelError(f"{path} is a directory, not a model file") from None
    except NotRegular as error:
        raise ModelError(f"model {path} is {error}; give the model file itself") from None
    except (OSError, ValueError) as error:
        raise ModelError(f"cannot read model {path}: {getattr(error, 'strerror', None) or error}") from None
    model_file = parse_model(path, data)
    model_file.identity = (info.st_dev, info.st_ino)  # the file read, for a learn that appends to it
    if verify:
        model_file.verify()
    return model_file


# What a header may hold.  JSON nested deeper than this is no model header
# (a real one is three levels deep); the length bound keeps a forged
# header from costing more than it could ever need to.
MAX_META_BYTES = 16 * 1024 * 1024
MAX_META_DEPTH = 32
# Sections, their types and how long each is (V keys, B blocks; see below).
SECTION_DTYPES = {"keys": ("<u8",), "weights": ("<f4",), "block_first": ("<u8",), "block_crcs": ("<u4",),
                  "token_lengths": ("<u4",), "token_bytes": ("|u1",), "occurrences": ("<u4", "<u2"),
                  "documents": ("<u4",), "last_seen": ("<u4",), "digests": ("<u8",), "digest_classes": ("|u1",),
                  "recent_raw": ("<f8",), "recent_labels": ("|u1",)}
MAX_TOKEN_BYTES = 4096
MAX_RECENT = 1 << 16
# A compressed section whose length is not tied to the vocabulary may
# expand at most this much (token text compresses about 2:1; learned-message
# digests are random and do not compress at all): past it, it is refused
# before it is decompressed.
MAX_EXPANSION = 64
_SLACK = 1 << 20


def _not_usable(path, why: str) -> ModelError:
    return ModelError(f"model {path} is not usable ({why}); retrain it")


def parse_model(path, data) -> ModelFile:
    if len(data) < len(MAGIC) or data[:len(MAGIC)] != MAGIC:
        raise ModelError(f"{path} is not a spamnb model (no spamnb signature)")
    if len(data) < PREFIX.size:
        raise ModelError(f"model {path} is truncated")
    _, version, _flags, meta_length, meta_crc, body_crc = PREFIX.unpack_from(data)
    if version > FORMAT_VERSION:
        raise ModelError(f"model {path} has format version {version}, newer than this spamnb "
                         f"reads ({FORMAT_VERSION}); upgrade spamnb")
    if version not in READABLE_VERSIONS:
        raise ModelError(f"model {path} has format version {version}, from an older spamnb; "
                         f"retrain it (this spamnb reads version {FORMAT_VERSION})")
    body_start = PREFIX.size + meta_length
    if body_start > len(data):
        raise ModelError(f"model {path} is truncated")
    if meta_length > MAX_META_BYTES:
        raise _not_usable(path, f"a header of {meta_length:,} bytes")
    meta_bytes = data[PREFIX.size:body_start]
    if crc32(meta_bytes) != meta_crc:
        raise ModelError(f"model {path} is corrupt (header checksum mismatch); restore a backup or retrain")
    if json_nested_deeper_than(bytes(meta_bytes), MAX_META_DEPTH):
        raise _not_usable(path, "its header is nested too deeply")
    try:
        meta = jsoncodec.loads(meta_bytes)
        sections = meta["sections"]
        if not isinstance(sections, dict):
            raise TypeError
    except RecursionError:
        raise _not_usable(path, "its header is nested too deeply") from None
    except (ValueError, KeyError, TypeError):
        raise ModelError(f"model {path} is corrupt (unreadable header)") from None
    try:
        end = check_layout(meta, len(data) - body_start)
    except (ValueError, TypeError, KeyError) as error:
        raise _not_usable(path, f"bad section table: {error}") from None
    if body_start + end > len(data):
        raise ModelError(f"model {path} is truncated")
    body_length = meta.get("body_length", len(data) - body_start) if version >= 3 else len(data) - body_start
    if not isinstance(body_length, int) or not end <= body_length <= len(data) - body_start:
        raise ModelError(f"model {path} is corrupt (bad body length)")
    return ModelFile(str(path), data, meta, body_start, version, body_crc, body_length)


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


def _whole(value, what: str, low: int = 0, high: int = 1 << 62) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{what} is {value!r}")
    return value


def check_layout(meta: dict, body_length: int) -> int:
    """Check the section table against what every reader relies on; returns
    the end of the last section.  Each section has its own type and a
    length fixed by the vocabulary V (the keys, stored raw, so V is paid
    for in file bytes) and the block size; the few that are not so fixed
    may expand at most MAX_EXPANSION-fold.  So nothing is decompressed to
    more than the table says, and the table says nothing a reader cannot
    afford, before a byte is decompressed."""
    sections = meta["sections"]
    end = 0
    sizes = {}
    for name, entry in sections.items():
        if name not in SECTION_DTYPES:
            raise ValueError(f"unknown section {name!r}")
        if not isinstance(entry, dict):
            raise ValueError(f"section {name} is not a table")
        if entry.get("dtype") not in SECTION_DTYPES[name]:
            raise ValueError(f"section {name} has type {entry.get('dtype')!r}")
        shape = entry.get("shape")
        if not isinstance(shape, list) or not 1 <= len(shape) <= 2:
            raise ValueError(f"section {name} has shape {shape!r}")
        count = 1
        for extent in shape:
            count *= _whole(extent, f"an extent of section {name}")
        offset = _whole(entry.get("offset"), f"the offset of section {name}", 0, body_length)
        length = _whole(entry.get("length"), f"the length of section {name}", 0, body_length)
        _whole(entry.get("crc"), f"the checksum of section {name}", 0, 2**32 - 1)
        if offset % _ALIGN:
            raise ValueError(f"section {name} is not aligned")
        codec = entry.get("codec")
        expected = count * _itemsize(entry["dtype"])
        if codec is None:
            if expected != length:
                raise ValueError(f"section {name} holds {length:,} bytes for {expected:,}")
        elif codec != "zlib":
            raise ValueError(f"section {name} has codec {codec!r}")
        end = max(end, offset + length)
        sizes[name] = (tuple(shape), expected, length)
    if "keys" not in sizes:
        raise ValueError("no keys")
    vocabulary = sizes["keys"][0][0] if len(sizes["keys"][0]) == 1 else -1
    block_size = _whole(meta.get("block_size"), "the block size", 1, 1 << 20)
    blocks = -(-vocabulary // block_size)
    fixed = {"keys": (vocabulary,), "weights": (vocabulary,), "block_first": (blocks,), "block_crcs": (blocks,),
             "token_lengths": (vocabulary,), "occurrences": (2, vocabulary), "documents": (2, vocabulary),
             "last_seen": (vocabulary,)}
    for name, shape in fixed.items():
        if name in sizes and sizes[name][0] != shape:
            raise ValueError(f"section {name} has shape {list(sizes[name][0])}, expected {list(shape)}")
    for name in ("token_bytes", "digests", "recent_raw"):
        if name in sizes:
            shape, expected, length = sizes[name]
            if len(shape) != 1:
                raise ValueError(f"section {name} has shape {list(shape)}")
            bound = {"token_bytes": vocabulary * MAX_TOKEN_BYTES, "digests": 1 << 40, "recent_raw": 8 * MAX_RECENT}
            if expected > bound[name] or (sections[name].get("codec") and expected > MAX_EXPANSION * length + _SLACK):
                raise ValueError(f"section {name} would expand to {expected:,} bytes")
    for name, partner in (("digest_classes", "digests"), ("recent_labels", "recent_raw")):
        if (name in sizes) != (partner in sizes) or (name in sizes and sizes[name][0] != sizes[partner][0]):
            raise ValueError(f"sections {partner} and {name} disagree")
    return end


def check_u4(name: str, array):
    import numpy as np

    if array.size and (array.min() < 0 or array.max() > _U4_MAX):
        raise ModelError(f"{name} out of range for the model format (0..{_U4_MAX})")
    return np.asarray(array).astype("<u4")
