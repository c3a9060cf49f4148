"""Every file is checked before it is trusted: the model, the
settings, inputs and stdin are what they should be, checked without
blocking; a model is refused ("not usable, retrain", exit 3) rather than
scored wrong or answered with exit 70; settings are type-checked and an
error names its source.

Hostile files are generated here from the sample model and plain text.
"""

from __future__ import annotations

import json
import os
import random
import resource
import struct
import subprocess
import sys
import time
import zlib

import pytest

from conftest import SAMPLE, run_spamnb
from spamnb.errors import ModelError
from spamnb.model.modelfile import FORMAT_VERSION, MAGIC, PREFIX
from spamnb._core import block_crcs

SPAM_FILE = SAMPLE / "maildir" / "spam" / "new" / "1739205492.M2P4102.sample"
TIME_LIMIT = 20.0


# -- writing a model file as an attacker would: checksums right, content not ------

def read_parts(path):
    data = path.read_bytes()
    _, _, _, meta_length, _, _ = PREFIX.unpack_from(data)
    meta = json.loads(data[PREFIX.size:PREFIX.size + meta_length])
    return meta, bytearray(data[PREFIX.size + meta_length:])


def write_parts(path, meta, body, meta_bytes: bytes | None = None, version: int = 2, pad: bool = True):
    """A model file with every checksum recomputed: only its content is wrong."""
    if meta_bytes is None:
        meta_bytes = json.dumps(meta, sort_keys=True).encode()  # Infinity and NaN as JSON5-ish literals
    if pad:
        meta_bytes += b" " * (-(PREFIX.size + len(meta_bytes)) % 8)
    path.write_bytes(PREFIX.pack(MAGIC, version, 0, len(meta_bytes), zlib.crc32(meta_bytes), zlib.crc32(bytes(body)))
                     + meta_bytes + bytes(body))


def section(meta, body, name) -> bytes:
    entry = meta["sections"][name]
    return bytes(body[entry["offset"]:entry["offset"] + entry["length"]])


def put_section(meta, body, name, data: bytes) -> None:
    entry = meta["sections"][name]
    if len(data) == entry["length"]:
        body[entry["offset"]:entry["offset"] + len(data)] = data
    else:  # appended at the end, aligned
        body.extend(b"\0" * (-len(body) % 8))
        entry["offset"] = len(body)
        entry["length"] = len(data)
        body.extend(data)
    entry["crc"] = zlib.crc32(data)


def scoring_arrays(meta, body):
    count = meta["sections"]["keys"]["shape"][0]
    keys = list(struct.unpack(f"<{count}Q", section(meta, body, "keys")))
    weights = list(struct.unpack(f"<{count}f", section(meta, body, "weights")))
    return keys, weights


def put_scoring(meta, body, keys, weights, first=None) -> None:
    """New keys and weights with block checksums (and, unless given, the
    block index) recomputed, as a careful forger would."""
    raw_keys, raw_weights = struct.pack(f"<{len(keys)}Q", *keys), struct.pack(f"<{len(weights)}f", *weights)
    put_section(meta, body, "keys", raw_keys)
    put_section(meta, body, "weights", raw_weights)
    size = meta["block_size"]
    put_section(meta, body, "block_first", struct.pack(f"<{-(-len(keys) // size)}Q",
                                                      *(keys[::size] if first is None else first)))
    put_section(meta, body, "block_crcs", struct.pack(f"<{-(-len(keys) // size)}I",
                                                     *block_crcs(raw_keys, raw_weights, size)))


def message_token_indexes(model_path):
    """Indexes in the keys of the tokens the spam message is scored on."""
    from spamnb.model.scorer import Scorer

    scorer = Scorer.open(model_path)
    tokens = scorer.tokens(SPAM_FILE.read_bytes())
    return sorted({i for i in (scorer.table.index(t) for t in tokens) if i >= 0 and scorer.table.weight(i)})


def honest(sample_model):
    result = run_spamnb("classify", "--model", sample_model, "--format", "tsv", SPAM_FILE)
    assert result.returncode == 0
    return result.stdout


def assert_refused_or_honest(path, sample_model, what):
    """Never a wrong score: the fast path, filter and a full load each refuse
    the file (exit 3 / 75, one line) or give exactly the honest answer."""
    expected = honest(sample_model)
    started = time.monotonic()
    result = run_spamnb("classify", "--model", path, "--format", "tsv", SPAM_FILE, timeout=60)
    assert result.returncode in (0, 3), (what, result.stderr)
    if result.returncode == 3:
        assert b"retrain" in result.stderr and result.stderr.count(b"\n") == 1, result.stderr
    else:
        assert result.stdout.split(b"\t")[2:] == expected.split(b"\t")[2:], what
    raw = SPAM_FILE.read_bytes()
    filtered = run_spamnb("filter", "--model", path, input=raw, timeout=60)
    assert filtered.returncode in (0, 75) and (filtered.returncode == 0 or filtered.stdout == raw), what
    inspected = run_spamnb("inspect", "--model", path, timeout=60)
    assert inspected.returncode in (0, 3) and b"internal error" not in inspected.stderr, (what, inspected.stderr)
    assert time.monotonic() - started < 3 * TIME_LIMIT
    return result.returncode, inspected.returncode


# -- keys, weights -------------------------------------------------------------------

def reversed_keys(meta, body, indexes, rng):
    keys, weights = scoring_arrays(meta, body)
    put_scoring(meta, body, keys[::-1], weights[::-1])


def shuffled_within_blocks(meta, body, indexes, rng):
    keys, weights = scoring_arrays(meta, body)
    size = meta["block_size"]
    first = keys[::size]
    pairs = list(zip(keys, weights))
    for start in range(0, len(pairs), size):
        block = pairs[start:start + size]
        rng.shuffle(block)
        pairs[start:start + size] = block
    put_scoring(meta, body, [k for k, _ in pairs], [w for _, w in pairs], first=first)


def shuffled_keeping_each_first_key(meta, body, indexes, rng):
    keys, weights = scoring_arrays(meta, body)
    size = meta["block_size"]
    pairs = list(zip(keys, weights))
    for start in range(0, len(pairs), size):
        block = pairs[start + 1:start + size]
        rng.shuffle(block)
        pairs[start + 1:start + size] = block
    put_scoring(meta, body, [k for k, _ in pairs], [w for _, w in pairs])


def swapped_across_blocks(meta, body, indexes, rng):
    # A token the message is scored on, moved into another block's middle.
    keys, weights = scoring_arrays(meta, body)
    size = meta["block_size"]
    i = next(i for i in indexes if i % size not in (0, size - 1))
    j = (i + 3 * size) % len(keys)
    j = j - j % size + size // 2
    keys[i], keys[j] = keys[j], keys[i]
    weights[i], weights[j] = weights[j], weights[i]
    put_scoring(meta, body, keys, weights)


def repeated_key(meta, body, indexes, rng):
    # The next token's key replaced by the message token's: that token is gone.
    keys, weights = scoring_arrays(meta, body)
    i = next(i for i in indexes if (i + 1) % meta["block_size"])
    keys[i + 1] = keys[i]
    put_scoring(meta, body, keys, weights)


def nan_weight(meta, body, indexes, rng):
    keys, weights = scoring_arrays(meta, body)
    weights[indexes[0]] = float("nan")
    put_scoring(meta, body, keys, weights)


def infinite_weight(meta, body, indexes, rng):
    keys, weights = scoring_arrays(meta, body)
    weights[indexes[-1]] = float("inf")
    put_scoring(meta, body, keys, weights)


KEY_DAMAGE = [reversed_keys, shuffled_within_blocks, shuffled_keeping_each_first_key, swapped_across_blocks,
              repeated_key, nan_weight, infinite_weight]


@pytest.mark.parametrize("damage", KEY_DAMAGE, ids=lambda f: f.__name__)
def test_keys_out_of_order_repeated_or_weights_not_finite_are_refused(tmp_path, sample_model, damage):
    meta, body = read_parts(sample_model)
    damage(meta, body, message_token_indexes(sample_model), random.Random(17))
    path = tmp_path / "damaged.spamnb"
    write_parts(path, meta, body)
    classify_status, inspect_status = assert_refused_or_honest(path, sample_model, damage.__name__)
    # Every one of these changes what the message's tokens are found to weigh:
    # each must be refused, by the scoring path and by a full load alike.
    assert (classify_status, inspect_status) == (3, 3), damage.__name__


# -- the header ------------------------------------------------------------------------

# Out of every field's domain (-1, say, is a fine calibration offset).
HOSTILE_VALUES = {"inf": float("inf"), "-inf": float("-inf"), "nan": float("nan"), "1e300": 1e300,
                  "-1e300": -1e300, "a string": "x", "null": None, "true": True, "a list": [], "a table": {},
                  "nested": [[[[1]]]]}
FIELDS = [("bias",), ("calibration", "scale"), ("calibration", "offset"), ("cutoffs", "spam"), ("cutoffs", "ham"),
          ("alpha",), ("robinson",), ("min_strength",), ("retrain_margin",), ("top_k",), ("chunk",), ("min_df",), ("max_features",),
          ("block_size",), ("normalize",), ("event_model",), ("tokenizer",), ("tokenizer", "headers"),
          ("tokenizer", "stopwords"), ("tokenizer", "bigrams"), ("tokenizer", "fold_variants"), ("messages",),
          ("tokenizer_version",), ("sections",), ("sections", "keys"), ("sections", "keys", "shape"),
          ("sections", "weights", "offset"), ("sections", "occurrences", "length"),
          ("sections", "occurrences", "shape"), ("sections", "token_bytes", "shape"),
          ("sections", "digests", "shape"), ("sections", "recent_raw", "dtype")]


def with_value(meta, field, value):
    meta = json.loads(json.dumps(meta))
    target = meta
    for key in field[:-1]:
        target = target[key]
    target[field[-1]] = value
    return meta


def test_hostile_header_values_are_refused_or_harmless_never_a_crash(tmp_path, sample_model):
    # In-process over the whole matrix (32 fields x 11 values, and -1 where
    # a field cannot be negative): Scorer.open
    # and scoring (classify, filter), Model.load (learn, inspect) raise
    # ModelError or give exactly the honest score; nothing else escapes.
    from spamnb.model.model import Model
    from spamnb.model.scorer import Scorer

    raw = SPAM_FILE.read_bytes()
    expected = Scorer.open(sample_model).score_message(raw)
    meta, body = read_parts(sample_model)
    path = tmp_path / "hostile.spamnb"
    outcomes = {"refused": 0, "harmless": 0}
    never_negative = [field for field in FIELDS if field[-1] in (
        "alpha", "robinson", "min_strength", "retrain_margin", "top_k", "chunk", "min_df", "max_features", "block_size", "spam",
        "ham", "offset", "length", "shape", "messages")]
    cases = [(field, name, value) for field in FIELDS for name, value in HOSTILE_VALUES.items()
             if not (name == "a list" and field[-1] in ("headers", "stopwords"))]  # [] is "none" there
    cases += [(field, "-1", -1) for field in never_negative if field != ("calibration", "offset")]
    for field, name, value in cases:
        if True:
            write_parts(path, with_value(meta, field, value), body)
            for load in (Scorer.open, Model.load):
                try:
                    score = load(path).score_message(raw)
                except ModelError:
                    outcomes["refused"] += 1
                    continue
                assert score == expected, (field, name, load)
                outcomes["harmless"] += 1
    assert outcomes["refused"] > outcomes["harmless"]


@pytest.mark.parametrize("case", ["inf bias", "1e300 calibration scale", "NaN cutoff", "JSON 100,000 deep",
                                  "a 20 MB header", "a header one byte past its padding"])
def test_hostile_header_through_the_command_line_is_exit_3(tmp_path, sample_model, case):
    meta, body = read_parts(sample_model)
    meta_bytes = None
    if case == "inf bias":
        meta = with_value(meta, ("bias",), float("inf"))
    elif case == "1e300 calibration scale":
        meta = with_value(meta, ("calibration", "scale"), 1e300)
    elif case == "NaN cutoff":
        meta = with_value(meta, ("cutoffs", "spam"), float("nan"))
    elif case == "JSON 100,000 deep":
        meta_bytes = json.dumps(meta).encode()[:-1] + b', "extra": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    elif case == "a 20 MB header":
        meta_bytes = json.dumps(dict(meta, extra="x" * 20_000_000)).encode()
    path = tmp_path / "hostile.spamnb"
    if case == "a header one byte past its padding":
        # Sound sections, but none where a reader of numbers in place may take
        # them; a format that learn appends to, so that learn reads it mapped.
        meta_bytes = json.dumps(meta).encode()
        meta_bytes += b" " * ((-(PREFIX.size + len(meta_bytes)) % 8) + 1)
        write_parts(path, meta, body, meta_bytes, version=FORMAT_VERSION, pad=False)
    else:
        write_parts(path, meta, body, meta_bytes)
    for args in (["classify", "--model", path, SPAM_FILE], ["inspect", "--model", path],
                 ["learn", "--spam", SPAM_FILE, "--model", path]):
        result = run_spamnb(*args, timeout=60)
        assert result.returncode == 3, (case, args[0], result.stderr)
        assert b"not usable" in result.stderr and b"retrain" in result.stderr, result.stderr
        assert result.stderr.count(b"\n") == 1 and b"internal error" not in result.stderr
    raw = SPAM_FILE.read_bytes()
    filtered = run_spamnb("filter", "--model", path, input=raw, timeout=60)
    assert filtered.returncode == 75 and filtered.stdout == raw


# -- sizes bounded before decompression ------------------------------------------------

GIB = 1 << 30


def zeros_bomb(chunks: int = 96, chunk: int = 16 << 20) -> bytes:
    """A valid zlib stream of chunks x chunk zero bytes (1.5 GiB) in 1.5 MB:
    one steady-state deflate block repeated, with the true Adler-32."""
    zeros = bytes(chunk)
    compressor = zlib.compressobj(9)
    first = compressor.compress(zeros) + compressor.flush(zlib.Z_SYNC_FLUSH)
    steady = compressor.compress(zeros) + compressor.flush(zlib.Z_SYNC_FLUSH)
    last = compressor.compress(zeros) + compressor.flush()
    adler = 1
    for _ in range(chunks):
        adler = zlib.adler32(zeros, adler)
    return first + steady * (chunks - 3) + last[:-4] + adler.to_bytes(4, "big")


@pytest.fixture(scope="module")
def bomb():
    return zeros_bomb()


@pytest.mark.parametrize("shape", ["honest shape", "shape claiming 1.5 GiB"])
def test_a_section_that_expands_to_1_5_gib_is_refused_before_it_costs_memory(tmp_path, sample_model, bomb, shape):
    meta, body = read_parts(sample_model)
    put_section(meta, body, "occurrences", bomb)
    if shape != "honest shape":
        meta["sections"]["occurrences"]["shape"] = [2, 3 * GIB // 16]
    path = tmp_path / "bomb.spamnb"
    write_parts(path, meta, body)
    limit = GIB  # the whole 1.5 GiB could not even be allocated

    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    for args in (["inspect", "--model", path], ["learn", "--ham", SPAM_FILE, "--model", path]):
        started = time.monotonic()
        result = subprocess.run([sys.executable, "-m", "spamnb", *map(str, args)], capture_output=True,
                                preexec_fn=limited, timeout=120, stdin=subprocess.DEVNULL)
        assert result.returncode == 3, (args[0], result.stderr)
        assert b"not usable" in result.stderr and b"MemoryError" not in result.stderr, result.stderr
        assert time.monotonic() - started < TIME_LIMIT


# -- a FIFO (or device) where a file should be ----------------------------------------------

def test_a_fifo_where_a_file_should_be_is_refused_at_once(tmp_path, sample_model):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    message = SPAM_FILE.read_bytes()
    model_copy = tmp_path / "m.spamnb"
    model_copy.write_bytes(sample_model.read_bytes())
    lock_fifo_model = tmp_path / "locked" / "m.spamnb"
    lock_fifo_model.parent.mkdir()
    lock_fifo_model.write_bytes(sample_model.read_bytes())
    os.mkfifo(lock_fifo_model.parent / ".m.spamnb.lock")  # the writers' hidden lock file
    folder = tmp_path / "mail"
    for label in ("spam", "ham"):
        (folder / label).mkdir(parents=True)
        (folder / label / "a.eml").write_bytes(message.replace(b"Subject:", b"Subject: " + label.encode(), 1))
    os.mkfifo(folder / "spam" / "b.eml")
    cases = [
        (["classify", "--model", fifo, SPAM_FILE], None, 3, b"FIFO"),           # the fast path
        (["classify", "--model", fifo, "--format", "jsonl", SPAM_FILE], None, 3, b"FIFO"),
        (["inspect", "--model", fifo], None, 3, b"FIFO"),
        (["learn", "--spam", SPAM_FILE, "--model", fifo], None, 3, b"FIFO"),
        (["learn", "--spam", SPAM_FILE, "--model", lock_fifo_model], None, 3, b"lock"),
        (["filter", "--model", fifo], message, 75, b"FIFO"),
        (["--config", fifo, "classify", "--model", model_copy, SPAM_FILE], None, 64, b"FIFO"),
        (["train", folder, "--model", tmp_path / "n.spamnb", "--stopwords", fifo, "-q"], None, 4, b"FIFO"),
        (["import", fifo, "--model", tmp_path / "i.spamnb"], None, 4, b"FIFO"),
        (["classify", "--model", model_copy, "--format", "tsv", folder], None, 4, b"not a regular file"),
    ]
    for args, data, status, said in cases:
        started = time.monotonic()
        result = run_spamnb(*args, input=data, timeout=60)
        assert result.returncode == status, (args, result.stderr)
        assert said in result.stderr and b"Traceback" not in result.stderr, (args, result.stderr)
        assert time.monotonic() - started < TIME_LIMIT, args
        if args[0] == "filter":
            assert result.stdout == message


# -- settings ----------------------------------------------------------------------------------

SETTINGS = {
    "spam-cutoff = true": ("spam-cutoff = true\n", b"spam-cutoff: True is not a number"),
    "model = 5": ("model = 5\n", b"model: 5 is not a string"),
    "a nested array": ("spam-cutoff = [[0.5]]\n", b"spam-cutoff: a list where one value goes"),
    "a table for a value": ("[classify.max-size]\nx = 1\n", b"[classify] max-size: a table where one value goes"),
    "max-size = 1e30": ("max-size = 1e30\n", b"max-size: 1e+30 is not a whole number"),
    "max-size = 2**63-1": ("max-size = 9223372036854775807\n", b"max-size: 9223372036854775807 is not in the range"),
    "timeout = nan": ("timeout = nan\n", b"timeout: nan is not a finite number"),
    "a choice that is a number": ("[classify]\nformat = 3\n", b"[classify] format: 3 is not a string"),
    "a fraction for a count": ("[classify]\njobs = 2.5\n", b"[classify] jobs: 2.5 is not a whole number"),
    "an unknown key": ("spam-cutof = 0.5\n", b"no setting 'spam-cutof'"),
    "NUL in a string": ("model = \"a\\u0000b\"\n", b"model: holds a NUL character"),
    "arrays 100,000 deep": ("model = " + "[" * 100_000 + "]" * 100_000 + "\n", b"nested too deeply"),
    "inline tables 500 deep": ("model = " + "{a = " * 500 + "1" + "}" * 500 + "\n", b"nested too deeply"),
}


@pytest.mark.parametrize("case", list(SETTINGS))
def test_settings_are_type_checked_and_an_error_names_file_and_key(tmp_path, sample_model, case):
    text, said = SETTINGS[case]
    config = tmp_path / "config.toml"
    config.write_text(text)
    result = run_spamnb("classify", "--model", sample_model, SPAM_FILE, env={"SPAMNB_CONFIG": str(config)})
    assert result.returncode == 64, (case, result.returncode, result.stdout, result.stderr)
    assert said in result.stderr and str(config).encode() in result.stderr, result.stderr
    assert result.stderr.count(b"\n") == 1 and b"Traceback" not in result.stderr
    assert b"Invalid value for '--" not in result.stderr


@pytest.mark.parametrize("variable,value,said", [
    ("SPAMNB_SPAM_CUTOFF", "abc", b"$SPAMNB_SPAM_CUTOFF: 'abc' is not a number"),
    ("SPAMNB_SPAM_CUTOFF", "2", b"$SPAMNB_SPAM_CUTOFF: 2.0 is not in the range"),
    ("SPAMNB_HAM_CUTOFF", "inf", b"$SPAMNB_HAM_CUTOFF: inf is not a finite number"),
    ("SPAMNB_ALPHA", "nan", b"$SPAMNB_ALPHA: nan is not a finite number"),
    ("SPAMNB_FORMAT", "xml", b"$SPAMNB_FORMAT: 'xml' is not one of"),
    ("SPAMNB_HEADER", "X-A\r\nBcc: victim@example.com", b"$SPAMNB_HEADER"),
])
def test_environment_errors_name_the_variable(sample_model, variable, value, said):
    result = run_spamnb("classify", "--model", sample_model, SPAM_FILE, env={variable: value})
    assert result.returncode == 64 and said in result.stderr, result.stderr
    assert b"Invalid value for '--" not in result.stderr and result.stderr.count(b"\n") == 1


# A model path from the environment, with what a terminal or a log would act
# on: a line break, a carriage return, an escape sequence, a bidi override.
HOSTILE_PATH = "/nonexistent/a\nspamnb: forged line\rb\x1b[31mc\u202ed.spamnb"
HOSTILE_PATH_SHOWN = rb"/nonexistent/a\nspamnb: forged line\rb\x1b[31mc\u202ed.spamnb"


@pytest.mark.parametrize("front_end", ["classify (fast path)", "classify --format json", "filter", "inspect"])
def test_a_path_from_outside_is_escaped_in_the_one_line_error(front_end):
    args = {"classify (fast path)": ["classify", SPAM_FILE],
            "classify --format json": ["classify", "--format", "json", SPAM_FILE],
            "filter": ["filter"], "inspect": ["inspect"]}[front_end]
    raw = SPAM_FILE.read_bytes()
    result = run_spamnb(*args, env={"SPAMNB_MODEL": HOSTILE_PATH}, input=raw if front_end == "filter" else None)
    assert result.returncode == (75 if front_end == "filter" else 3), result.stderr
    first = result.stderr.split(b"\n")[0]
    assert first.startswith(b"spamnb: ") and HOSTILE_PATH_SHOWN in first, result.stderr
    for control in (b"\r", b"\x1b", "\u202e".encode()):
        assert control not in result.stderr
    if front_end == "filter":  # its second line says the message went through
        assert result.stderr.count(b"\n") == 2 and result.stdout == raw
    else:
        assert result.stderr.count(b"\n") == 1


def test_paths_to_read_are_escaped_in_the_lines_that_name_them(sample_model, tmp_path):
    missing = tmp_path / "no\tsuch\nfile"
    empty = tmp_path / "empty\x1b[2J"
    empty.write_bytes(b"")
    result = run_spamnb("classify", "--model", sample_model, "--format", "tsv", empty, missing)
    assert result.returncode == 4, result.stderr
    lines = result.stderr.splitlines()
    assert all(line.startswith(b"spamnb: ") for line in lines) and b"\x1b" not in result.stderr, lines
    assert any(rb"no\tsuch\nfile" in line for line in lines) and any(rb"empty\x1b[2J" in line for line in lines)


def test_printable_escapes_what_would_not_show_and_keeps_the_rest():
    from spamnb.errors import printable

    assert printable("/home/李雷/mail 2025/模型.spamnb") == "/home/李雷/mail 2025/模型.spamnb"
    assert printable("a\nb\r\tc\x00\x1b[0m\x7f\x85\u2028\u202e\ufeff") == \
        r"a\nb\r\tc\x00\x1b[0m\x7f\x85\u2028\u202e\ufeff"
    assert printable(os.fsdecode(b"/tmp/\xff\xfe")) == r"/tmp/\xff\xfe"  # the undecodable bytes themselves


@pytest.mark.parametrize("where", ["/dev/zero", "a FIFO", "a directory", "a 2 MB file"])
def test_a_settings_path_that_is_no_settings_file_is_refused_at_once(tmp_path, sample_model, where):
    path = {"/dev/zero": "/dev/zero", "a FIFO": str(tmp_path / "fifo"), "a directory": str(tmp_path),
            "a 2 MB file": str(tmp_path / "big.toml")}[where]
    if where == "a FIFO":
        os.mkfifo(path)
    if where == "a 2 MB file":
        with open(path, "w") as handle:
            handle.write("# padding\n" * 200_000)
    started = time.monotonic()
    result = run_spamnb("classify", "--model", sample_model, SPAM_FILE, env={"SPAMNB_CONFIG": path}, timeout=60)
    assert result.returncode == 64 and path.encode() in result.stderr, result.stderr
    assert result.stderr.count(b"\n") == 1 and b"MemoryError" not in result.stderr
    assert time.monotonic() - started < TIME_LIMIT


# -- the journal that `learn` appends to a model ------------------------------------------

def journal_record(text: bytes) -> bytes:
    """One journal record around a header text, its checksum right (journal.py's layout)."""
    from spamnb.model.journal import COUNTS, MAGIC as JOURNAL_MAGIC, RECORD

    payload = COUNTS.pack(len(text), 0, 0, 0) + text
    return RECORD.pack(JOURNAL_MAGIC, len(payload), zlib.crc32(payload)) + payload


GOOD_HEADER = {"messages": [0, 1], "totals": [0, 10], "vocabulary": 0, "day": 20000, "learned": [], "recent": []}


@pytest.mark.parametrize("case,text", [
    ("totals 1e300", json.dumps(dict(GOOD_HEADER, totals=[0, 1e300])).encode()),
    ("messages a string", json.dumps(dict(GOOD_HEADER, messages=["x", 1])).encode()),
    ("a NaN recent score", json.dumps(dict(GOOD_HEADER, recent=[[float("nan"), 1]])).encode()),
    ("a label of 7", json.dumps(dict(GOOD_HEADER, learned=[[12345, 7]])).encode()),
    ("JSON 100,000 deep", b"[" * 100_000 + b"]" * 100_000),
])
def test_a_journal_record_with_a_right_checksum_and_hostile_content_is_refused(tmp_path, sample_model, case, text):
    path = tmp_path / "journalled.spamnb"
    path.write_bytes(sample_model.read_bytes() + journal_record(text))
    raw = SPAM_FILE.read_bytes()
    for args in (["classify", "--model", path, SPAM_FILE], ["inspect", "--model", path]):
        result = run_spamnb(*args, timeout=60)
        assert result.returncode == 3, (case, args[0], result.stderr)
        assert b"journal record 1 does not add up" in result.stderr and result.stderr.count(b"\n") == 1
    filtered = run_spamnb("filter", "--model", path, input=raw, timeout=60)
    assert filtered.returncode == 75 and filtered.stdout == raw
    # The same record with sane content is read as learning, not refused.
    path.write_bytes(sample_model.read_bytes() + journal_record(json.dumps(GOOD_HEADER).encode()))
    assert run_spamnb("classify", "--model", path, SPAM_FILE).returncode == 0
