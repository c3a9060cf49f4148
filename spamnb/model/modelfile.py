"""The model file: its layout, and writing one.

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
(_core.token_key), which makes the file canonical: the same counts give the
same bytes however they were gathered.  The sections that scoring reads are
stored raw, so a reader maps them and touches only what a message needs:

        keys           u8[V]    sorted token keys
        weights        f4[V]    λ_w
        block_first    u8[B]    the first key of each block of 512 keys
        block_crcs     u4[B]    CRC-32 of each block's keys and weights
        occurrences    u2 or u4[2,V]   N_cw (ham row, spam row): with a journal,
                                scoring computes λ from them (spamnb/model/scorer.py)
        occurrence_crcs u4[B]   CRC-32 of each block's occurrence counts
                                (modelread.occurrence_block_crc), so that
                                scoring with a journal checks the blocks a
                                message needs, not the whole section (a
                                model without it is checked whole)
        digests, digest_classes u8[M], u1[M]   messages learned (sorted), and as what

The rest, needed to learn, inspect and export, is compressed (codec
"zlib": the array's bytes grouped by significance, then zlib, which stores
small counts in a fraction of their width):

        token_lengths  u4[V]    UTF-8 length of each token
        token_bytes    u1[...]  the tokens, concatenated
        documents      u4[2,V]  D_cw
        last_seen      u4[V]    day number each token was last learned

Checking: the metadata checksum always; a full load (inspect, export, a
rewrite) checks the whole body; classify and learn check the block index on
opening and each block of keys and weights (and, with a journal, of
occurrence counts) the first time a message needs it, so a damaged byte
never reaches a score, and opening costs the same for a model of ten
thousand or ten million tokens.

The magic's \\x1a\\n catch a file mangled by a text-mode transfer, as PNG's
do.  Nothing in the file is executed or deserialised into arbitrary Python
objects when it is read: JSON and fixed-type arrays only.

Reading one back, checked, is modelread.py's; replacing the file atomically,
the writers' lock, backups and appending a journal record, modelstore.py's.
"""

from __future__ import annotations

import os

# crc32: the core's, several times faster than zlib's over a mapped model
# (and zlib, loaded only to compress or decompress a section).
from .._core import crc32
from .. import jsoncodec
from ..errors import ModelError
from .modelread import ALIGN, FORMAT_VERSION, MAGIC, PREFIX, occurrence_block_crc  # noqa: F401  # as readers check them
from .modelstore import atomic_write

_U4_MAX = 2**32 - 1
BLOCK_KEYS = 512
"""Keys per checked block: 4 KiB of keys, 2 KiB of weights."""


def _pad(length: int) -> int:
    return -length % ALIGN


def shuffle_bytes(data: bytes, itemsize: int) -> bytes:
    """Byte k of every item together, k = 0..itemsize-1 (Blosc's shuffle):
    the high bytes of small counts are all zero and compress to nothing."""
    if itemsize <= 1:
        return data
    return b"".join(data[k::itemsize] for k in range(itemsize))


def occurrence_crcs(occurrences) -> list[int]:
    """The occurrence_crcs section of a (2, V) array of occurrence counts in
    the little-endian type they are stored as (C order: the ham row, then
    the spam row)."""
    import numpy as np

    if occurrences.size == 0:
        return []
    stored = np.ascontiguousarray(occurrences).data.cast("B")
    vocabulary = len(stored) // (2 * occurrences.itemsize)
    return [occurrence_block_crc(stored, vocabulary, occurrences.itemsize, start, min(start + BLOCK_KEYS, vocabulary))
            for start in range(0, vocabulary, BLOCK_KEYS)]


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

    # zlib lets go of the GIL: the sections compress side by side (one after
    # another they are 0.8 s of a spamassassin training).
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


# What a thread compressing a section beside other work (deflate_to_file) reads
# at a time: it adds its pieces to the peak of what it runs beside, and zlib
# goes as fast on a megabyte as on four.
DEFLATE_BYTES = 1 << 20


def _read_parts(parts, itemsize: int = 1, piece_bytes: int = STREAM_BYTES):
    """The bytes of `parts` (numpy arrays, or paths of files of raw array
    bytes) in order, a piece of at most `piece_bytes` (whole items) at a time."""
    step = max(itemsize, piece_bytes - piece_bytes % itemsize)
    for part in parts:
        if isinstance(part, str):
            with open(part, "rb") as handle:
                while piece := handle.read(step):
                    yield piece
        else:
            data = memoryview(part.tobytes() if not part.flags.c_contiguous else part).cast("B")
            for start in range(0, len(data), step):
                yield bytes(data[start:start + step])


def _deflated(parts, itemsize: int, piece_bytes: int = STREAM_BYTES):
    """The zlib stream of a section's parts (see _read_parts), shuffled as
    write_model does (byte k of every item together) by reading the parts
    once per byte of an item, a piece at a time."""
    import zlib

    deflate = zlib.compressobj(6)
    for plane in range(itemsize):
        for data in _read_parts(parts, itemsize, piece_bytes):
            yield deflate.compress(data[plane::itemsize] if itemsize > 1 else data)
    yield deflate.flush()


def deflate_to_file(parts, dtype: str, target: str, stop=None) -> str:
    """Write a compressed section's stored bytes (_deflated) to the file
    `target` and return its path: what write_model_streamed stores for the
    section when given the path in `deflated`.  zlib lets go of the GIL, so a
    thread can do this while the caller goes on (training compresses the
    model's sections while it fits the calibration).  `stop` (a
    threading.Event), once set, ends the work between two pieces with
    concurrent.futures.CancelledError: a build given up (an error, Ctrl-C)
    does not wait for the compression of a large section to finish."""
    from concurrent.futures import CancelledError

    import numpy as np

    with open(target, "wb") as out:
        for piece in _deflated(parts, np.dtype(dtype).itemsize, DEFLATE_BYTES):
            if stop is not None and stop.is_set():
                raise CancelledError(f"compression of {target} stopped")
            out.write(piece)
    return target


def write_model_streamed(path: str | os.PathLike, meta: dict, sections: list, compressed: frozenset,
                         scratch: str, deflated: dict | None = None) -> None:
    """write_model for sections too big to hold: each of `sections` is
    (name, dtype, shape, parts), its array's bytes in `parts` (see
    _read_parts), written a piece at a time.  A compressed section is
    shuffled and deflated as write_model does (_deflated), unless
    `deflated` maps its name to a file of those bytes already made
    (deflate_to_file), or to a future of one.  The body is put together in a
    file in `scratch` first, since the header, written before it, holds the
    sections' lengths and checksums; the same arrays give the same bytes as
    write_model."""
    import numpy as np

    deflated = deflated or {}
    body_path = os.path.join(scratch, "body")
    table: dict[str, dict] = {}
    offset = body_crc = 0
    with open(body_path, "wb") as body:
        for name, dtype, shape, parts in sections:
            itemsize = np.dtype(dtype).itemsize
            crc = length = 0
            if name in compressed and name in deflated:
                made = deflated[name]
                pieces = _read_parts([made if isinstance(made, str) else made.result()])
            elif name in compressed:
                pieces = _deflated(parts, itemsize)
            else:
                pieces = _read_parts(parts, itemsize)
            for piece in pieces:
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


def check_u4(name: str, array):
    import numpy as np

    if array.size and (array.min() < 0 or array.max() > _U4_MAX):
        raise ModelError(f"{name} out of range for the model format (0..{_U4_MAX})")
    return np.asarray(array).astype("<u4")
