"""The journal: what `learn` adds to a model, appended to the model file.

Rewriting a model of a million tokens to learn one message costs seconds;
appending what that message changed costs microseconds.  A model file is a
canonical base (modelfile.py) followed by records, one per `learn` run:

    record   "SPNJ" | u32 payload length | u32 CRC-32 of payload | payload
    payload  u32 ×4: JSON length J, touched tokens N, new tokens M, new-token bytes B
             JSON (J bytes): {"messages": [Δham, Δspam], "totals": [ΔT_ham, ΔT_spam],
                              "vocabulary": ΔV, "day": day number,
                              "learned": [[digest, class or -1 when forgotten], ...],
                              "recent": [[raw score, class], ...]}
             u64[N]  keys of the tokens whose counts changed, ascending
             i32[4N] their count changes: Δocc_ham, Δocc_spam, Δdoc_ham, Δdoc_spam, per token
             u64[M]  keys of tokens new to the model, u32[M] their UTF-8 lengths, then B bytes of text

Changes, not absolute counts: a record never needs the counts it adds to,
so `learn` reads nothing of the base but the keys and occurrence counts of
the message's own tokens.  A record is written with one write() under the
model's lock; a reader (which takes no lock) that meets a record cut short
or failing its checksum stops there, so it sees every `learn` before or
after, never half of one.  A torn record left by a killed writer is not
truncated (a reader may have the file mapped): the next `learn` folds the
journal into a new base and renames it into place instead.

When the journal outgrows its budget (`learn`'s compaction rule, see
spamnb.learning.incremental) it is folded into a new base: Model.load applies it,
calibration and cutoffs are refitted, Model.save writes the result.

Standard library only: a scoring process reads the journal without numpy.
"""

from __future__ import annotations

import sys
import time
from struct import Struct, calcsize, pack, unpack

from .. import jsoncodec
from .._core import crc32, journal_keys_increasing, journal_sums

TYPE_CHECKING = False  # mypy reads this name as true; these names are for the type checker only
if TYPE_CHECKING:
    from collections.abc import Sequence

# `learn` keeps the raw score each of the last RECENT_SCORES messages had
# before it was learned: scores of mail the model had not seen, in the order
# it came, from which it refits calibration and cutoffs (Model.refit_from_recent).
RECENT_SCORES = 2000
# Refit once at least this many of each class are on record.
RECENT_MINIMUM = 10


def today() -> int:
    """Days since 1970-01-01 UTC: the unit of `last_seen`, and of a journal record's day."""
    return int(time.time() // 86400)


MAGIC = b"SPNJ"
RECORD = Struct("<4sII")
COUNTS = Struct("<IIII")


# Numbers as bytes by struct and memoryview, not the array module: importing
# array imports collections (to register array as a MutableSequence), about
# a tenth of a fresh `learn`'s start.
_LITTLE_ENDIAN = sys.byteorder == "little"


def _little(code: str, values: Sequence[int]) -> bytes:
    """`values` as little-endian numbers of struct code `code` (Q, I or i)."""
    return pack(f"<{len(values)}{code}", *values)


def _native(code: str, data) -> Sequence[int]:
    """Little-endian numbers of struct code `code` (Q, I or i) as a sequence of ints:
    on a little-endian machine, a view of a copy of the bytes."""
    raw = bytes(data)
    if _LITTLE_ENDIAN:
        return memoryview(raw).cast(code)  # type: ignore[call-overload]  # the struct code is known only at run time
    return unpack(f"<{len(raw) // calcsize('<' + code)}{code}", raw)


def _stored(code: str, numbers) -> bytes | memoryview:
    """Numbers _native made, as the little-endian bytes they were read from."""
    if _LITTLE_ENDIAN:
        return numbers.cast("B")  # _native's view of those very bytes
    return _little(code, numbers)


def encode(header: dict, changes: dict[int, list[int]], new_tokens: dict[int, str]) -> bytes:
    """One whole record.  `changes`: key → [Δocc_ham, Δocc_spam, Δdoc_ham, Δdoc_spam]."""
    text = jsoncodec.dumps(header, sort_keys=True, allow_nan=False).encode("utf-8")
    keys = sorted(changes)
    flat = [change for key in keys for change in changes[key]]
    new_keys = sorted(new_tokens)
    encoded = [new_tokens[key].encode("utf-8", "surrogatepass") for key in new_keys]
    token_bytes = b"".join(encoded)
    payload = b"".join([
        COUNTS.pack(len(text), len(keys), len(new_keys), len(token_bytes)), text,
        _little("Q", keys), _little("i", flat),
        _little("Q", new_keys), _little("I", [len(token) for token in encoded]), token_bytes])
    return RECORD.pack(MAGIC, len(payload), crc32(payload)) + payload


class Record:
    """One record, parsed.  Its new tokens' text is decoded when asked for
    (only folding the journal into a base needs it; a scoring process reads
    thousands of them otherwise); the bytes are checked to be UTF-8 at once."""

    __slots__ = ("header", "keys", "changes", "_new_keys", "_lengths", "_text", "_new_tokens")

    def __init__(self, header: dict, keys: Sequence[int], changes: Sequence[int], new_keys: Sequence[int],
                 lengths: Sequence[int], text: bytes) -> None:
        self.header = header
        self.keys = keys
        self.changes = changes
        self._new_keys, self._lengths, self._text = new_keys, lengths, text
        self._new_tokens: dict[int, str] | None = None

    @property
    def new_tokens(self) -> dict[int, str]:
        if self._new_tokens is None:
            tokens, start, raw = {}, 0, self._text
            for key, length in zip(self._new_keys, self._lengths):
                tokens[key] = raw[start:start + length].decode("utf-8", "surrogatepass")
                start += length
            self._new_tokens = tokens
        return self._new_tokens


def decode(payload) -> Record:
    """A record's payload, parsed.  Raises ValueError if it does not add up."""
    if len(payload) < COUNTS.size:
        raise ValueError("record too short")
    text_length, touched, new, token_length = COUNTS.unpack_from(payload)
    sizes = [text_length, 8 * touched, 16 * touched, 8 * new, 4 * new, token_length]
    if COUNTS.size + sum(sizes) != len(payload):
        raise ValueError("record sizes disagree")
    at = COUNTS.size
    parts = []
    for size in sizes:
        parts.append(payload[at:at + size])
        at += size
    try:
        header = jsoncodec.loads(bytes(parts[0]))
    except RecursionError:
        raise ValueError("record header nested too deeply") from None
    if not isinstance(header, dict):
        raise ValueError("record header is not an object")
    _check_header(header)
    # Strictly increasing, as encode() writes them: a reader finds a key by
    # bisection (JournalState.changes), and must find what folding finds.
    if not journal_keys_increasing(parts[1]):
        raise ValueError("record keys are not in order")
    keys, changes = _native("Q", parts[1]), _native("i", parts[2])
    new_keys, lengths = _native("Q", parts[3]), _native("I", parts[4])
    raw = bytes(parts[5])
    if sum(lengths) != len(raw):
        raise ValueError("new-token lengths disagree")
    raw.decode("utf-8", "surrogatepass")  # UnicodeDecodeError: not text (each token is decoded when read)
    return Record(header, keys, changes, new_keys, lengths, raw)


def _whole(value, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _check_header(header: dict) -> None:
    """What JournalState.apply and scoring add up: whole numbers of sane size,
    finite scores, known labels (a record whose checksum is right may still
    have been written by someone else than `learn`, so its values are not
    trusted)."""
    for key, bound in (("messages", 2**40), ("totals", 2**50)):
        pair = header.get(key)
        if not (isinstance(pair, list) and len(pair) == 2 and all(_whole(v, -bound, bound) for v in pair)):
            raise ValueError(f"record {key} are not two whole numbers")
    if not _whole(header.get("vocabulary"), -2**40, 2**40) or not _whole(header.get("day", 0), 0, 2**32 - 1):
        raise ValueError("record vocabulary or day is not a whole number")
    learned, recent = header.get("learned", []), header.get("recent", [])
    if not (isinstance(learned, list) and all(
            isinstance(item, list) and len(item) == 2 and _whole(item[0], 0, 2**64 - 1) and item[1] in (-1, 0, 1)
            and not isinstance(item[1], bool) for item in learned)):
        raise ValueError("record learned messages are not digests and labels")
    if not (isinstance(recent, list) and all(
            isinstance(item, list) and len(item) == 2 and isinstance(item[0], (int, float))
            and not isinstance(item[0], bool) and abs(item[0]) <= 1e6 and item[1] in (0, 1)
            and not isinstance(item[1], bool) for item in recent)):  # NaN fails abs(x) <= 1e6
        raise ValueError("record recent scores are not finite scores and labels")


def read_records(data) -> tuple[list[Record], int]:
    """The whole records at the start of `data`, and where they end.  Reading
    stops at the first record that is cut short or fails its checksum (a
    write in progress, or torn by a killed writer).  A record whose checksum
    is right but whose content does not add up was not torn: ValueError."""
    records, at, size = [], 0, len(data)
    view = memoryview(data)
    while at + RECORD.size <= size:
        magic, length, crc = RECORD.unpack_from(view, at)
        end = at + RECORD.size + length
        if magic != MAGIC or end > size:
            break
        payload = view[at + RECORD.size:end]
        if crc32(payload) != crc:
            break
        try:
            records.append(decode(payload))
        except (ValueError, UnicodeDecodeError) as error:
            raise ValueError(f"journal record {len(records) + 1} does not add up: {error}") from None
        at = end
    return records, at


BATCH_STEPS_PER_ENTRY = 32
"""Bisections in the core (a few ns each) that the keys asked for may take,
over all the asks, per journal entry before the journal is added up whole
instead (a Python step per entry, some 30 times dearer): the cost stays
linear in the journal whatever the messages and the record count."""


class _Changes:
    """key → [Δocc_ham, Δocc_spam, Δdoc_ham, Δdoc_spam] summed over the
    records, as a dict would give it, worked out per key when asked.

    A cold classify or learn asks for a few hundred keys; adding every
    record up first (a Python step per key: 11,376 keys for a 420 KB
    journal) was most of what a journal cost it.  The keys asked for at once
    (many(); get() asks for one) are summed in the core, every record
    searched there, and remembered.  Once the searches of all asks have
    stepped through BATCH_STEPS_PER_ENTRY times the entries the journal
    holds, or the keys remembered would outnumber them, the journal is added
    up once and every answer comes from that: a long-lived reader (serve)
    meets new keys in every message, and neither its work nor its memory may
    grow past the journal's.  The lists handed out are the state's own:
    `learn` adds a message's changes to them in place, as to a dict's
    values.  Whole-journal uses (keys(), values(), len(): folding it into
    a base) add everything up once, the per-key answers given so far kept."""

    def __init__(self, records: list) -> None:
        self._records = records  # (keys, changes) of each record, keys strictly increasing
        self._entries: int | None = None  # keys in all records
        self._searches = 0  # keys summed over every record so far
        self._known: dict[int, list[int] | None] = {}
        self._whole: dict[int, list[int]] | None = None

    def get(self, key: int, default=None):
        found = self._whole.get(key) if self._whole is not None else self.many([key])[0]
        return default if found is None else found

    def many(self, keys: list[int]) -> list[list[int] | None]:
        """get() of each of `keys`, in order: those not asked for before
        summed over the records in one call into the core, not a bisection
        per key and record (a Python step each)."""
        whole = self._whole
        if whole is not None:
            return whole.many(keys) if isinstance(whole, _Overlay) else [whole.get(key) for key in keys]
        known = self._known
        asked = list(dict.fromkeys(key for key in keys if key not in known))
        if asked:
            if self._entries is None:
                self._entries = sum(len(held) for held, _ in self._records)
            self._searches += len(asked)
            if (self._searches * len(self._records) > BATCH_STEPS_PER_ENTRY * self._entries
                    or len(known) + len(asked) > self._entries):
                # Many messages, or one huge one, against a journal (a file anyone may
                # have written): adding it up once keeps work and memory linear in it.
                whole = self.whole()
                return [whole.get(key) for key in keys]
            stored = [(_stored("Q", held), _stored("i", changes)) for held, changes in self._records]
            known.update(zip(asked, journal_sums(stored, asked)))
        return [known[key] for key in keys]

    def __contains__(self, key: int) -> bool:
        return self.get(key) is not None

    def __getitem__(self, key: int) -> list[int]:
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return found

    def setdefault(self, key: int, default: list[int]) -> list[int]:
        found = self.get(key)
        if found is not None:
            return found
        if self._whole is not None:
            self._whole[key] = default
        else:
            self._known[key] = default
        return default

    def start(self, key: int) -> list[int]:
        """setdefault(key, [0, 0, 0, 0]) for a key the caller was just told
        (by many) that no record and no learn holds: its new sums, the state's own."""
        fresh = [0, 0, 0, 0]
        if self._whole is not None:
            self._whole[key] = fresh
        else:
            self._known[key] = fresh
        return fresh

    def whole(self) -> dict[int, list[int]]:
        """Every key's sums, as one dict (computed once)."""
        if self._whole is None:
            whole: dict[int, list[int]] = {}
            _add_up(whole, self._records)
            for key, found in self._known.items():  # the lists handed out, and what learn put in them
                if found is None:
                    whole.pop(key, None)
                else:
                    whole[key] = found
            self._whole = whole
        return self._whole

    def extended(self, pairs: list) -> None:
        """`pairs` were appended to the records this reads (a long-lived reader,
        serve, catching up): added to the sums if they were made, else the
        per-key answers are worked out again."""
        if self._whole is not None:
            _add_up(self._whole, pairs)
        else:
            self._entries, self._known, self._searches = None, {}, 0

    def keys(self):
        return self.whole().keys()

    def values(self):
        return self.whole().values()

    def items(self):
        return self.whole().items()

    def __iter__(self):
        return iter(self.whole())

    def __len__(self) -> int:
        return len(self.whole())


def _add_up(whole: dict[int, list[int]], records) -> None:
    """Add the (keys, changes) of `records` into `whole`, key by key."""
    get = whole.get
    for keys, changes in records:
        flat = iter(changes)  # the four changes of each key off one iterator
        for key, occ_ham, occ_spam, doc_ham, doc_spam in zip(keys, flat, flat, flat, flat):
            known = get(key)
            if known is None:
                whole[key] = [occ_ham, occ_spam, doc_ham, doc_spam]
            else:
                known[0] += occ_ham
                known[1] += occ_spam
                known[2] += doc_ham
                known[3] += doc_spam


class _Overlay(dict):
    """key → sums for one learn (JournalState.learner_copy): its own lists,
    over sums shared with other learns, which are never written: a key's
    list is copied here the first time the learn asks for it.  Only get and
    item assignment are used (LiveTable, learn); whole-journal reads go to
    a state of their own."""

    def __init__(self, shared: dict[int, list[int]] | _Changes) -> None:
        super().__init__()
        self._shared = shared

    def get(self, key, default=None):
        found = dict.get(self, key)
        if found is None:
            shared = self._shared.get(key)
            if shared is None:
                return default
            found = self[key] = list(shared)
        return found

    def many(self, keys: list[int]) -> list[list[int] | None]:
        """get() of each of `keys`, in order, the shared sums asked for in one batch."""
        answers = [dict.get(self, key) for key in keys]
        asked = [key for key, answer in zip(keys, answers) if answer is None]
        if not asked:
            return answers
        shared = self._shared
        theirs = shared.many(asked) if isinstance(shared, _Changes) else [shared.get(key) for key in asked]
        copies = {key: list(found) for key, found in zip(asked, theirs) if found is not None}
        dict.update(self, copies)
        return [copies.get(key) if answer is None else answer for key, answer in zip(keys, answers)]

    def _whole_journal(self, *_):
        raise NotImplementedError("a learner's overlay answers lookups only; read the journal whole "
                                  "from the file (ModelFile.journal) to add it all up")

    keys = values = items = __iter__ = __len__ = _whole_journal


class _NewTokens(dict):
    """key → text of the tokens the journal adds to the vocabulary; the
    records' text is decoded on the first read, not for `learn`'s writes."""

    def __init__(self, records: list) -> None:
        super().__init__()
        self._records: list | None = records

    def _read(self) -> None:
        if self._records is not None:
            records, self._records = self._records, None
            added = dict.copy(self)  # learn's own, written before the first read
            for record in records:
                dict.update(self, record.new_tokens)
            dict.update(self, added)

    def __getitem__(self, key):
        self._read()
        return super().__getitem__(key)

    def __contains__(self, key) -> bool:
        self._read()
        return super().__contains__(key)

    def get(self, key, default=None):
        self._read()
        return super().get(key, default)

    def __len__(self) -> int:
        self._read()
        return super().__len__()

    def __iter__(self):
        self._read()
        return super().__iter__()

    def keys(self):
        self._read()
        return super().keys()

    def values(self):
        self._read()
        return super().values()

    def items(self):
        self._read()
        return super().items()


class JournalState:
    """Every record of a journal added up: what the base's figures must be moved by.

    The per-model figures (messages, totals, vocabulary, learned digests,
    recent scores) are added up as records come; the per-token changes,
    their days and the new tokens' text are worked out when asked for
    (_Changes), since a cold classify or learn asks for a few hundred
    tokens of a journal of thousands."""

    def __init__(self) -> None:
        self._records: list[Record] = []
        self._pairs: list[tuple[Sequence[int], Sequence[int]]] = []
        self.changes = _Changes(self._pairs)
        self.new_tokens = _NewTokens(self._records)
        self._last_day: dict[int, int] | None = None
        self.messages = [0, 0]
        self.totals = [0, 0]
        self.vocabulary = 0
        self.learned: dict[int, int] = {}     # digest → class; -1: forgotten
        self.recent: list[tuple[float, int]] = []
        self.records = 0

    def __bool__(self) -> bool:
        return self.records > 0

    @property
    def last_day(self) -> dict[int, int]:
        """key → day of the last record that changed it."""
        if self._last_day is None:
            last_day: dict[int, int] = {}
            for record in self._records:
                last_day.update(dict.fromkeys(record.keys, int(record.header.get("day", 0))))
            self._last_day = last_day
        return self._last_day

    def extend(self, records: list[Record]) -> None:
        """Add records appended since the state was read (a long-lived
        reader: serve); the per-key answers worked out so far are dropped."""
        for record in records:
            self.apply(record)
        self.changes.extended([(record.keys, record.changes) for record in records])
        self.new_tokens = _NewTokens(self._records)
        self._last_day = None

    def learner_copy(self, first: bool = False) -> "JournalState":
        """A state for one `learn` to add its messages to, sharing this one's
        records and per-key sums without writing to them.  The sums are added
        up once, here, and kept up by extend: a long-lived learner (serve's
        workers) then looks a message's tokens up in one dict instead of
        bisecting every record at every learn, a search that grows with the
        journal (BENCHMARKS.md "Online through the command line").  But not
        for the `first` learn from this state (all a fresh `learn` process
        makes): its sums are worked out for its own tokens only, as _Changes
        does (adding up a journal of 20 records costs a fresh learn 1.5 ms)."""
        copy = JournalState()
        copy._records, copy._pairs = list(self._records), list(self._pairs)
        copy.changes = _Changes(copy._pairs)
        copy.changes._whole = _Overlay(self.changes if first else self.changes.whole())
        copy.new_tokens = _NewTokens(copy._records)
        copy.messages, copy.totals, copy.vocabulary = list(self.messages), list(self.totals), self.vocabulary
        copy.learned, copy.recent, copy.records = dict(self.learned), list(self.recent), self.records
        return copy

    def apply(self, record: Record) -> None:
        header = record.header
        self._records.append(record)
        self._pairs.append((record.keys, record.changes))
        for index in range(2):
            self.messages[index] += int(header["messages"][index])
            self.totals[index] += int(header["totals"][index])
        self.vocabulary += int(header["vocabulary"])
        for digest, label in header.get("learned", ()):
            self.learned[int(digest)] = int(label)
        self.recent.extend((float(raw), int(label)) for raw, label in header.get("recent", ()))
        self.records += 1


def state_of(data) -> tuple[JournalState, bool]:
    """The journal in `data` added up, and whether it ends in a torn record."""
    records, end = read_records(data)
    state = JournalState()
    for record in records:
        state.apply(record)
    return state, end < len(data)
