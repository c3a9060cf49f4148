"""The model file: layout, atomic writing, and checked reading.

Layout (all integers little-endian):

    prefix   32 bytes  magic b"SPAMNB\\x1a\\n", format version u32, flags u32,
                       metadata length u64, CRC-32 of metadata u32,
                       CRC-32 of body u32
    metadata           UTF-8 JSON: options, message counts, bias, cutoffs and
                       a table of sections {name: offset, length, dtype, shape,
                       codec, crc} (offsets relative to the body), padded to 8
    body               the sections, each 8-byte aligned (`body_length` bytes)
    journal            records appended by `learn` (spamnb/journal.py), if any

Every per-token section is in the order of the tokens' 64-bit keys
(scoring.token_key), which makes the file canonical: the same counts give the
same bytes however they were gathered.  The sections that scoring reads are
stored raw, so a reader maps them and touches only what a message needs:

        keys           u8[V]    sorted token keys
        weights        f4[V]    λ_w
        block_first    u8[B]    the first key of each block of 512 keys
        block_crcs     u4[B]    CRC-32 of each block's keys and weights
        occurrences    u2 or u4[2,V]   N_cw (ham row, spam row): with a journal,
                                scoring computes λ from them (spamnb/scorer.py)
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
import json
import mmap
import os
import struct
import zlib
from .errors import ModelError

MAGIC = b"SPAMNB\x1a\n"
FORMAT_VERSION = 3
READABLE_VERSIONS = (2, 3)
"""Version 3 added the journal (and `body_length`); a version 2 file is a base with none."""
PREFIX = struct.Struct("<8sIIQII")
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
                compressed: frozenset = frozenset()) -> None:
    """Write a model atomically: temp file in the same directory, fsync, rename.

    `sections` maps names to numpy arrays; those named in `compressed` are
    stored with the "zlib" codec.  A crash or error at any point leaves
    whatever was at `path` before intact.
    """
    import numpy as np
    from concurrent.futures import ThreadPoolExecutor

    arrays = {name: np.ascontiguousarray(array) for name, array in sections.items()}

    def stored(name: str) -> bytes:
        data = arrays[name].tobytes()
        if name in compressed:
            data = zlib.compress(shuffle_bytes(data, arrays[name].dtype.itemsize), 6)
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
        entry = {"dtype": array.dtype.str, "shape": list(array.shape)}
        if name in compressed:
            entry["codec"] = "zlib"
        entry.update(offset=offset, length=len(data), crc=zlib.crc32(data))
        table[name] = entry
        blobs.append(data)
        blobs.append(b"\0" * _pad(len(data)))
        offset += len(data) + _pad(len(data))
    meta = dict(meta, sections=table, body_length=offset)
    meta_bytes = json.dumps(meta, ensure_ascii=False, sort_keys=True).encode("utf-8")
    meta_bytes += b" " * _pad(PREFIX.size + len(meta_bytes))
    body_crc = 0
    for blob in blobs:
        body_crc = zlib.crc32(blob, body_crc)
    prefix = PREFIX.pack(MAGIC, FORMAT_VERSION, 0, len(meta_bytes), zlib.crc32(meta_bytes), body_crc)
    atomic_write(path, [prefix, meta_bytes, *blobs])


def check_writable(path: str | os.PathLike):
    """Fail early, with a ModelError, if a model cannot be written at `path`.

    Run before a long training run rather than after it.  Returns the real
    path: a symlinked model is replaced at its target, not turned into a file.
    """
    from pathlib import Path  # writers only: pathlib is 4 ms of a scoring process's start

    text = os.fspath(path)
    if text.endswith(os.sep) or os.path.isdir(text):
        raise ModelError(f"{text} is a directory; give the model a file name")
    real = Path(os.path.realpath(text))
    directory = real.parent
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ModelError(f"cannot create the model's directory {directory}: {error.strerror or error}") from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise ModelError(f"cannot write a model in {directory}: permission denied")
    return real


def atomic_write(path: str | os.PathLike, chunks) -> None:
    path = check_writable(path)
    directory = path.parent
    import tempfile  # with shutil, bz2 and lzma: 8 ms a scoring process need not pay

    try:
        descriptor, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as error:
        raise ModelError(f"cannot write a model in {directory}: {error.strerror or error}") from None
    try:
        with os.fdopen(descriptor, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            # Keep the permissions an admin gave an existing model (say, group
            # readable for the MTA); a new model is private (mkstemp: 0600),
            # since its vocabulary is a digest of the owner's mail.
            os.chmod(temp_name, os.stat(path).st_mode & 0o7777)
        except FileNotFoundError:
            pass
        os.replace(temp_name, path)
    except BaseException as error:
        try:
            os.unlink(temp_name)
        except OSError:
            pass
        if isinstance(error, OSError):
            raise ModelError(f"cannot write model {path}: {error.strerror or error}; "
                             "the previous model, if any, is unchanged") from None
        raise
    _sweep_stale_temporaries(path)
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


# A writer killed by SIGKILL (or a power cut) leaves its temporary file; a
# write still in progress is seconds old.  An hour is far past any write.
STALE_TEMPORARY_SECONDS = 3600


def _sweep_stale_temporaries(path) -> None:
    """Remove `.MODEL.*.tmp` files that killed writers left beside `path`."""
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
            if entry.is_file(follow_symlinks=False) and \
                    time.time() - entry.stat(follow_symlinks=False).st_mtime > STALE_TEMPORARY_SECONDS:
                os.unlink(entry.path)
        except OSError:
            pass  # someone else's file, or already gone: not ours to worry about


class locked:
    """`with locked(path):` holds an exclusive lock for a read-modify-write
    of the model at `path`.

    The lock is on a sidecar file (`MODEL.lock`), not the model, because the
    model is replaced by rename and a lock on the old inode would not stop a
    writer that opened the new one.  Readers take no lock: they see the old
    or the new file whole, never half of one.  (A class, not
    contextlib.contextmanager: contextlib is 0.7 ms of a scoring process's start.)
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = path
        self.handle = None

    def __enter__(self) -> None:
        lock_path = os.fspath(check_writable(self.path)) + ".lock"
        try:
            self.handle = open(lock_path, "a")
        except OSError as error:
            raise ModelError(f"cannot lock {lock_path}: {error.strerror or error}") from None
        fcntl.flock(self.handle.fileno(), fcntl.LOCK_EX)

    def __exit__(self, *exception) -> None:
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
        self._journal_state = None

    @property
    def journal_bytes(self) -> int:
        return len(self.data) - self._body_end

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
        if zlib.crc32(self.stored(name)) != self.meta["sections"][name].get("crc", -1):
            raise ModelError(f"model {self.path} is corrupt (checksum mismatch in {name}); "
                             "restore a backup or retrain")

    def decoded(self, name: str) -> bytes | memoryview:
        """The section's array bytes, decompressed if it is stored compressed."""
        entry = self.meta["sections"][name]
        data = self.stored(name)
        if entry.get("codec") == "zlib":
            try:
                data = unshuffle_bytes(zlib.decompress(data), _itemsize(entry["dtype"]))
            except zlib.error:
                raise ModelError(f"model {self.path} is corrupt (section {name} does not "
                                 "decompress); restore a backup or retrain") from None
        return data

    def array(self, name: str):
        """The section as a numpy array (read-only for raw sections)."""
        import numpy as np

        entry = self.meta["sections"][name]
        return np.frombuffer(self.decoded(name), dtype=np.dtype(entry["dtype"])).reshape(entry["shape"])

    def verify(self) -> None:
        """Check the whole body against its checksum (what a full load does)."""
        if zlib.crc32(memoryview(self.data)[self._body_start:self._body_end]) != self._body_crc:
            raise ModelError(f"model {self.path} is corrupt (checksum mismatch); restore a backup or retrain")


def read_model(path: str | os.PathLike, verify: bool = True) -> ModelFile:
    """Open a model file and check it; every failure is a one-line ModelError.

    The file is memory-mapped: a reader pays for the pages it touches.  It
    stays valid when a writer replaces the model, because writers rename a
    new file into place and the mapping keeps the old one.  With `verify`
    the whole body is checked against its checksum.
    """
    path = os.fspath(path)
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            data = mmap.mmap(handle.fileno(), 0, prot=mmap.PROT_READ) if size else b""
    except FileNotFoundError:
        raise ModelError(f"no model at {path}; train one with `spamnb train`") from None
    except IsADirectoryError:
        raise ModelError(f"{path} is a directory, not a model file") from None
    except (OSError, ValueError) as error:
        raise ModelError(f"cannot read model {path}: {getattr(error, 'strerror', None) or error}") from None
    model_file = parse_model(path, data)
    if verify:
        model_file.verify()
    return model_file


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
    meta_bytes = data[PREFIX.size:body_start]
    if zlib.crc32(meta_bytes) != meta_crc:
        raise ModelError(f"model {path} is corrupt (header checksum mismatch); restore a backup or retrain")
    try:
        meta = json.loads(meta_bytes)
        sections = meta["sections"]
        end = max((s["offset"] + s["length"] for s in sections.values()), default=0)
    except (ValueError, KeyError, TypeError):
        raise ModelError(f"model {path} is corrupt (unreadable header)") from None
    if body_start + end > len(data):
        raise ModelError(f"model {path} is truncated")
    body_length = meta.get("body_length", len(data) - body_start) if version >= 3 else len(data) - body_start
    if not isinstance(body_length, int) or not end <= body_length <= len(data) - body_start:
        raise ModelError(f"model {path} is corrupt (bad body length)")
    try:
        for name, entry in sections.items():
            count = 1
            for extent in entry["shape"]:
                count *= int(extent)
            expected = count * _itemsize(entry["dtype"])
            raw = entry.get("codec") is None
            if (raw and expected != entry["length"]) or entry["offset"] < 0 or entry["offset"] % _ALIGN:
                raise ValueError(name)
    except (ValueError, TypeError, KeyError):
        raise ModelError(f"model {path} is corrupt (bad section table)") from None
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


def check_u4(name: str, array):
    import numpy as np

    if array.size and (array.min() < 0 or array.max() > _U4_MAX):
        raise ModelError(f"{name} out of range for the model format (0..{_U4_MAX})")
    return np.asarray(array).astype("<u4")
