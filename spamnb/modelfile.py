"""The model file: layout, atomic writing, and checked reading.

Layout (all integers little-endian):

    prefix   32 bytes  magic b"SPAMNB\\x1a\\n", format version u32, flags u32,
                       metadata length u64, CRC-32 of metadata u32,
                       CRC-32 of body u32
    metadata           UTF-8 JSON: options, message counts, bias, cutoffs and
                       a table of sections {name: offset, length, dtype, shape}
                       (offsets relative to the body), padded to 8 bytes
    body               the sections, each 8-byte aligned:
        token_offsets  u4[V+1]  start of token i in token_bytes
        token_bytes    u1[...]  UTF-8 tokens, concatenated
        occurrences    u4[2,V]  N_cw (ham row, spam row)
        documents      u4[2,V]  D_cw
        last_seen      u4[V]    day number each token was last learned
        weights        f8[V]    λ_w
        hash_slots     u4[S]    open-addressing index: token id + 1, 0 = empty

The magic's \\x1a\\n catch a file mangled by a text-mode transfer, as PNG's
do.  Nothing in the file is executed or unpickled when it is read: JSON and
fixed-type arrays only.

The hash index lets a reader find a token's weight without building a
dictionary of the whole vocabulary: slot h = CRC-32(token) mod S, probing
forward (no wrap-around; the table has a tail long enough) until the token or
an empty slot.  S is the power of two at least 2V, so chains stay short.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import struct
import tempfile
import zlib
from pathlib import Path

import numpy as np

from .errors import ModelError

MAGIC = b"SPAMNB\x1a\n"
FORMAT_VERSION = 1
PREFIX = struct.Struct("<8sIIQII")
_ALIGN = 8
_U4_MAX = 2**32 - 1


def _pad(length: int) -> int:
    return -length % _ALIGN


def token_hash(token_bytes: bytes) -> int:
    return zlib.crc32(token_bytes)


def hash_size_for(count: int) -> int:
    """The power of two at least twice the vocabulary (load factor at most 1/2)."""
    size = 8
    while size < 2 * count:
        size *= 2
    return size


def build_hash_slots(encoded_tokens: list[bytes], size: int) -> np.ndarray:
    """Open-addressing table of token id + 1, built without a Python probe loop.

    With keys sorted by home slot h_i, linear probing without wrap-around puts
    key i at p_i = max(h_i, p_{i-1} + 1), i.e. p_i = i + max_{j<=i}(h_j - j):
    a running maximum, which numpy computes in one pass.
    """
    count = len(encoded_tokens)
    homes = np.fromiter((token_hash(t) for t in encoded_tokens), dtype=np.uint64, count=count)
    homes &= np.uint64(size - 1)
    order = np.argsort(homes, kind="stable")
    sorted_homes = homes[order].astype(np.int64)
    ranks = np.arange(count, dtype=np.int64)
    positions = ranks + np.maximum.accumulate(sorted_homes - ranks) if count else ranks
    length = max(size, int(positions[-1]) + 2 if count else size)  # +1 keeps an empty tail slot
    slots = np.zeros(length, dtype="<u4")
    slots[positions] = order.astype(np.uint32) + 1
    return slots


def write_model(path: str | os.PathLike, meta: dict, sections: dict[str, np.ndarray]) -> None:
    """Write a model atomically: temp file in the same directory, fsync, rename.

    A crash or error at any point leaves whatever was at `path` before intact.
    """
    table: dict[str, dict] = {}
    offset = 0
    blobs: list[bytes] = []
    for name, array in sections.items():
        data = np.ascontiguousarray(array).tobytes()
        table[name] = {"offset": offset, "length": len(data), "dtype": array.dtype.str,
                       "shape": list(array.shape)}
        blobs.append(data)
        blobs.append(b"\0" * _pad(len(data)))
        offset += len(data) + _pad(len(data))
    meta = dict(meta, sections=table)
    meta_bytes = json.dumps(meta, ensure_ascii=False, sort_keys=True).encode("utf-8")
    meta_bytes += b" " * _pad(PREFIX.size + len(meta_bytes))
    body_crc = 0
    for blob in blobs:
        body_crc = zlib.crc32(blob, body_crc)
    prefix = PREFIX.pack(MAGIC, FORMAT_VERSION, 0, len(meta_bytes), zlib.crc32(meta_bytes), body_crc)
    atomic_write(Path(path), [prefix, meta_bytes, *blobs])


def check_writable(path: str | os.PathLike) -> Path:
    """Fail early, with a ModelError, if a model cannot be written at `path`.

    Run before a long training run rather than after it.  Returns the real
    path: a symlinked model is replaced at its target, not turned into a file.
    """
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


def atomic_write(path: Path, chunks) -> None:
    path = check_writable(path)
    directory = path.parent
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


@contextlib.contextmanager
def locked(path: str | os.PathLike):
    """Hold an exclusive lock for a read-modify-write of the model at `path`.

    The lock is on a sidecar file (`MODEL.lock`), not the model, because the
    model is replaced by rename and a lock on the old inode would not stop a
    writer that opened the new one.  Readers take no lock: they see the old
    or the new file whole, never half of one.
    """
    lock_path = os.fspath(check_writable(path)) + ".lock"
    try:
        handle = open(lock_path, "a")
    except OSError as error:
        raise ModelError(f"cannot lock {lock_path}: {error.strerror or error}") from None
    with handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


class ModelFile:
    """A model file read into memory and checked."""

    def __init__(self, path: str | os.PathLike, data: bytes, meta: dict, body_start: int) -> None:
        self.path = str(path)
        self.data = data
        self.meta = meta
        self._body_start = body_start

    def array(self, name: str) -> np.ndarray:
        entry = self.meta["sections"][name]
        start = self._body_start + entry["offset"]
        return np.frombuffer(self.data, dtype=np.dtype(entry["dtype"]),
                             count=int(np.prod(entry["shape"], dtype=np.int64)),
                             offset=start).reshape(entry["shape"])


def read_model(path: str | os.PathLike) -> ModelFile:
    """Read and verify a model file; every failure is a one-line ModelError."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        raise ModelError(f"no model at {path}; train one with `spamnb train`") from None
    except IsADirectoryError:
        raise ModelError(f"{path} is a directory, not a model file") from None
    except OSError as error:
        raise ModelError(f"cannot read model {path}: {error.strerror or error}") from None
    return parse_model(path, data)


def parse_model(path, data: bytes) -> ModelFile:
    if len(data) < len(MAGIC) or not data.startswith(MAGIC):
        raise ModelError(f"{path} is not a spamnb model (no spamnb signature)")
    if len(data) < PREFIX.size:
        raise ModelError(f"model {path} is truncated")
    _, version, _flags, meta_length, meta_crc, body_crc = PREFIX.unpack_from(data)
    if version > FORMAT_VERSION:
        raise ModelError(f"model {path} has format version {version}, newer than this spamnb "
                         f"reads ({FORMAT_VERSION}); upgrade spamnb")
    if version < 1:
        raise ModelError(f"model {path} has an unknown format version {version}")
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
    if zlib.crc32(memoryview(data)[body_start:]) != body_crc:
        raise ModelError(f"model {path} is corrupt (checksum mismatch); restore a backup or retrain")
    model_file = ModelFile(path, data, meta, body_start)
    try:
        for name, entry in sections.items():
            expected = int(np.prod(entry["shape"], dtype=np.int64)) * np.dtype(entry["dtype"]).itemsize
            if expected != entry["length"] or entry["offset"] < 0:
                raise ValueError(name)
    except (ValueError, TypeError, KeyError):
        raise ModelError(f"model {path} is corrupt (bad section table)") from None
    return model_file


def check_u4(name: str, array: np.ndarray) -> np.ndarray:
    if array.size and (array.min() < 0 or array.max() > _U4_MAX):
        raise ModelError(f"{name} out of range for the model format (0..{_U4_MAX})")
    return array.astype("<u4")
