"""Reading a model file, checked: every failure is a one-line ModelError,
never a wrong score (the layout is modelfile.py's; the prefix, versions and
alignment a reader checks are declared here, so that opening a model to
score or learn imports nothing of writing one).

The prefix, the header's checksum and its section table are checked on
opening (parse_model, check_layout), before a byte of a section is read or
decompressed; the body's checksum by a full load (ModelFile.verify), or a
section's or a block's the first time scoring needs it.
"""

from __future__ import annotations

import os
from struct import Struct

# map_file: the core maps the model (the mmap module would be one more shared library to load).
from .._core import crc32, json_nested_deeper_than, map_file  # linear, and spares a model open `import re`
from .. import jsoncodec
from ..errors import ModelError

MAGIC = b"SPAMNB\x1a\n"
FORMAT_VERSION = 4
READABLE_VERSIONS = (2, 3, 4)
"""Version 3 added the journal (and `body_length`); a version 2 file is a base with none.
Version 4 added the occurrence_crcs section (a spamnb that reads only 3 refuses it as newer,
not as a damaged file); a version 3 file is checked as before, its counts whole."""
PREFIX = Struct("<8sIIQII")
ALIGN = 8

TYPE_CHECKING = False  # mypy reads this name as true; typing stays unimported on the scoring path
if TYPE_CHECKING:
    from .journal import JournalState


def itemsize_of(dtype: str) -> int:
    return int(dtype[2:]) if dtype[:2] in ("<u", "<f", "<i", "|u", "|i") else 0


def occurrence_block_crc(stored, vocabulary: int, itemsize: int, start: int, end: int) -> int:
    """The checksum of the occurrence counts of tokens [start, end) in the
    `occurrences` section's bytes as stored (ham row, then spam row, of
    `vocabulary` entries of `itemsize` bytes each): CRC-32 of that span of the
    ham row's bytes followed by the same span of the spam row's.  One entry
    of the `occurrence_crcs` section, as the writers make it and a reader of
    counts checks it, a block at a time."""
    ham = stored[itemsize * start:itemsize * end]
    spam = stored[itemsize * (vocabulary + start):itemsize * (vocabulary + end)]
    return crc32(spam, crc32(ham))


def unshuffle_bytes(data: bytes, itemsize: int) -> bytes:
    """modelfile.shuffle_bytes undone: each item's bytes together again."""
    if itemsize <= 1:
        return data
    count = len(data) // itemsize
    out = bytearray(len(data))
    for k in range(itemsize):
        out[k::itemsize] = data[k * count:(k + 1) * count]
    return bytes(out)


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
    def prefix(self) -> bytes:
        """The file's first PREFIX.size bytes: they hold the header's and the
        body's checksums, so two files with the same prefix have the same base."""
        return bytes(memoryview(self.data)[:PREFIX.size])

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
            expected = itemsize_of(entry["dtype"])
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
            data = unshuffle_bytes(out, itemsize_of(entry["dtype"]))
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
            data = map_file(handle.fileno()) if size else b""
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
                  "occurrence_crcs": ("<u4",),
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
    """The model file whose bytes are `data` (mapped or read), checked as read_model says."""
    view = memoryview(data)
    if len(data) < len(MAGIC) or view[:len(MAGIC)] != MAGIC:
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
    if body_start % ALIGN:
        # Writers pad the header: the sections' offsets are aligned from the
        # body's start, and the core reads their numbers in place.
        raise _not_usable(path, "its header is not padded to 8 bytes")
    if meta_length > MAX_META_BYTES:
        raise _not_usable(path, f"a header of {meta_length:,} bytes")
    meta_bytes = view[PREFIX.size:body_start]
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
        if offset % ALIGN:
            raise ValueError(f"section {name} is not aligned")
        codec = entry.get("codec")
        expected = count * itemsize_of(entry["dtype"])
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
             "token_lengths": (vocabulary,), "occurrences": (2, vocabulary), "occurrence_crcs": (blocks,),
             "documents": (2, vocabulary),
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
