"""Fuzzing the scoring path with mutated real mail: no input may crash or stall it.

Every message of the shared corpora (spamassassin, trec06p, ccert_zh) is
mutated several times by seeded mutators that do to MIME what attackers and
broken mailers do (byte damage, truncation inside base64 or a multi-byte
character, header fields duplicated, dropped or reordered, mangled
Content-Type / Content-Transfer-Encoding / charset values, RFC 2231
parameters, broken boundaries, nested message/rfc822, NUL bytes, CR-only or
mixed line ends, very long lines, malformed RFC 2047 words, bad base64
padding, QP soft breaks at the end, broken HTML), 2 to 6 mutations per mutant.

Each mutant is scored in-process by the path `classify` and `filter` use
(`open_scorer(model).score_message(raw)` under `deadline.score_within`), on
two worker processes.  A failure is any exception escaping score_message
(what the CLI turns into exit 70), a deadline hit (a hang), or a probability
that is not finite or outside [0, 1].  Then a sample of mutants is written to
a temporary directory (never into the repository) and pushed through the real
command line: `spamnb classify --format tsv` with many files per process, and
`spamnb filter < FILE`.

A mutant is named by `CORPUS/RELATIVE-PATH#K` and the run's seed: the mutator
choices and their parameters come from a random generator seeded with
"SEED/CORPUS/PATH/K", so

    python bench/fuzz_mutated.py --seed SEED --replay 'trec06p/spam/000_001#3' [--write OUT]

rebuilds the same bytes, prints the mutations and scores it again.

    python bench/fuzz_mutated.py --report fuzz.json            # the full run
    python bench/fuzz_mutated.py --messages 200 --cli 100 --filter 20   # a quick one

Without --model it trains one with `python -m spamnb train` on the
spamassassin training part (bench/corpora.split) in a scratch directory.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = Path(os.environ.get("SPAMNB_CORPORA", ROOT.parent / "shared" / "corpora"))
CORPUS_NAMES = ("spamassassin", "trec06p", "ccert_zh")
DEFAULT_SEED = 17
MAX_MUTANT_BYTES = 4 * 1024 * 1024  # a mutant is cut here (classify reads 10 MiB)
MEMORY_LIMIT = 3 * 1024 ** 3  # address space of a scoring worker: a blow-up is a MemoryError

# =============================================================== byte helpers

_EOL = re.compile(rb"\r\n|\r|\n")
_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_BLANK_LINE = re.compile(rb"(?:\r\n|\r(?!\n)|\n)(?:\r\n|\r|\n)")  # as the core (core/src/mail/mime/scan.rs) finds it
_BASE64_LINE = re.compile(rb"(?m)^[A-Za-z0-9+/]{16,}={0,2}\r?$")
_HIGH = re.compile(rb"[\x80-\xff]")
_CTYPE = re.compile(rb"(?im)^(content-type[ \t]*:[ \t]*)([^\r\n;]*)")
_CTE = re.compile(rb"(?im)^(content-transfer-encoding[ \t]*:[ \t]*)([^\r\n]*)")
_CHARSET = re.compile(rb"(?i)(charset[ \t]*=[ \t]*)(\"[^\"\r\n]*\"|[^\s;\"]*)")
_EW_CHARSET = re.compile(rb"(=\?)([^?\s]+)(\?[bBqQ]\?)")
_BOUNDARY = re.compile(rb"(?i)boundary[ \t]*=[ \t]*(?:\"([^\"\r\n]+)\"|([^\s;\"]+))")
_PARAM_LINE = re.compile(rb"(?im)^(content-(?:type|disposition)[ \t]*:[^\r\n]*)")


def eol_of(data: bytes) -> bytes:
    found = _EOL.search(data)
    return found.group() if found else b"\n"


def split_head(data: bytes) -> tuple[bytes, bytes, bytes]:
    """(header block with its last line end, the blank line, body)."""
    blank = _BLANK_LINE.search(data)
    if blank is None:
        return data, b"", b""
    first = _EOL.match(data, blank.start()).end()
    return data[:first], data[first:blank.end()], data[blank.end():]


def header_fields(head: bytes) -> list[bytes]:
    """The header block as fields, each with its continuation lines and line ends."""
    fields: list[bytes] = []
    for line in _LINE.findall(head):
        if fields and line[:1] in (b" ", b"\t"):
            fields[-1] += line
        else:
            fields.append(line)
    return fields


def with_eol(line: bytes, eol: bytes) -> bytes:
    return line if line.endswith((b"\n", b"\r")) else line + eol


def field_name(line: bytes) -> bytes:
    return line.partition(b":")[0].strip().lower()


def boundaries(data: bytes) -> list[bytes]:
    return [m.group(1) or m.group(2) for m in _BOUNDARY.finditer(data)]


def body_position(rng: random.Random, data: bytes) -> int:
    """A random position, in the body four times out of five."""
    head, sep, body = split_head(data)
    if body and rng.random() < 0.8:
        return len(head) + len(sep) + rng.randrange(len(body) + 1)
    return rng.randrange(len(data) + 1)


def random_case(rng: random.Random, value: bytes) -> bytes:
    return bytes(c ^ 0x20 if 0x61 <= (c | 0x20) <= 0x7a and rng.random() < 0.5 else c for c in value)


def replace_match(rng: random.Random, data: bytes, pattern: re.Pattern, group: int, new: bytes):
    """data with group `group` of one random match of `pattern` replaced; None without a match."""
    matches = list(pattern.finditer(data))
    if not matches:
        return None
    m = rng.choice(matches)
    return data[:m.start(group)] + new + data[m.end(group):]


def add_top_field(data: bytes, line: bytes) -> bytes:
    """A field added at the end of the top header block."""
    head, sep, body = split_head(data)
    eol = eol_of(data)
    return with_eol(head, eol) + with_eol(line, eol) + sep + body


def set_top_field(data: bytes, name: bytes, value: bytes) -> bytes:
    """The top-level field `name` set to `value` (replaced, or added)."""
    head, sep, body = split_head(data)
    eol = eol_of(data)
    fields = [f for f in header_fields(head) if field_name(f) != name.lower()]
    fields.append(name + b": " + value + eol)
    return b"".join(with_eol(f, eol) for f in fields) + (sep or eol) + body


def is_multipart(data: bytes) -> bool:
    head, _, _ = split_head(data)
    return bool(re.search(rb"(?im)^content-type[ \t]*:[ \t]*multipart/", head))


def make_multipart(rng: random.Random, data: bytes) -> tuple[bytes, bytes]:
    """A single-part message turned into multipart/mixed (its body the first
    part, an HTML copy the second); returns (message, boundary)."""
    head, sep, body = split_head(data)
    eol = eol_of(data)
    boundary = b"=_fuzz_%d" % rng.randrange(10 ** 6)
    inner = []
    for f in header_fields(head):
        if field_name(f) in (b"content-type", b"content-transfer-encoding"):
            inner.append(with_eol(f, eol))
    outer = [with_eol(f, eol) for f in header_fields(head)
             if field_name(f) not in (b"content-type", b"content-transfer-encoding")]
    outer.append(b'Content-Type: multipart/mixed; boundary="' + boundary + b'"' + eol)
    parts = (b"--" + boundary + eol + b"".join(inner) + eol + body + eol
             + b"--" + boundary + eol + b"Content-Type: text/html; charset=us-ascii" + eol + eol
             + b"<html><body><p>" + body[:2000] + b"</p></body></html>" + eol
             + b"--" + boundary + b"--" + eol)
    return b"".join(outer) + eol + b"This is a multi-part message in MIME format." + eol + parts, boundary


# =============================================================== the mutators
#
# Each takes (rng, data) and returns (new data, a short description).  They
# never raise on any bytes: a mutator with nothing to work on does something
# else (turns the message into the shape it needs, or falls back).

INTERESTING = [b"\x00", b"\r", b"\n", b"\r\n", b"\n\r", b"=", b"=\n", b"=\r\n", b"?=", b"=?", b"--", b"<",
               b">", b"&", b";", b":", b'"', b"\\", b"\xff", b"\x80", b"\xe4\xb8", b"\xc3", b"\x1b$B",
               b"\x1b(B", b"~{", b"+/", b"\t", b" ", b"\xef\xbb\xbf", b"\xfe\xff", b"%", b"*", b"'"]


def m_flip(rng, data):
    n = rng.choice((1, 2, 4, 16, 64))
    out = bytearray(data)
    for _ in range(n):
        if not out:
            break
        pos = rng.randrange(len(out))
        out[pos] = rng.randrange(256) if rng.random() < 0.3 else out[pos] ^ (1 << rng.randrange(8))
    return bytes(out), f"{n}"


def m_insert(rng, data):
    n = rng.choice((1, 3, 10, 50))
    out = data
    for _ in range(n):
        pos = rng.randrange(len(out) + 1)
        piece = rng.choice(INTERESTING) if rng.random() < 0.8 else bytes(
            rng.randrange(256) for _ in range(rng.randint(1, 16)))
        out = out[:pos] + piece + out[pos:]
    return out, f"{n}"


def m_delete(rng, data):
    if rng.random() < 0.2 and len(data) > 10:
        start = rng.randrange(len(data))
        length = rng.randint(1, max(1, len(data) // 10))
        return data[:start] + data[start + length:], f"range {length}"
    n = rng.choice((1, 4, 16))
    out = data
    for _ in range(n):
        if len(out) < 2:
            break
        start = rng.randrange(len(out))
        out = out[:start] + out[start + rng.randint(1, 64):]
    return out, f"{n}"


def m_truncate(rng, data):
    modes = ["anywhere", "base64", "multibyte", "header", "encoded-word", "boundary", "entity"]
    mode = rng.choice(modes)
    cut = None
    if mode == "base64":
        lines = list(_BASE64_LINE.finditer(data))
        if lines:
            line = rng.choice(lines)
            cut = rng.randint(line.start() + 1, line.end())
    elif mode == "multibyte":
        highs = [m.start() for m in _HIGH.finditer(data, 0, min(len(data), 1 << 20))]
        if highs:
            cut = rng.choice(highs) + 1
    elif mode == "header":
        head, _, _ = split_head(data)
        cut = rng.randint(1, max(1, len(head)))
    elif mode == "encoded-word":
        words = [m.start() for m in re.finditer(rb"=\?", data)]
        if words:
            cut = rng.choice(words) + rng.randint(2, 12)
    elif mode == "boundary":
        found = [m.start() for m in re.finditer(rb"(?m)^--", data)]
        if found:
            cut = rng.choice(found) + rng.randint(1, 10)
    elif mode == "entity":
        found = [m.start() for m in re.finditer(rb"&#?\w|<\w", data)]
        if found:
            cut = rng.choice(found) + rng.randint(1, 4)
    if cut is None:
        mode = "anywhere"
        cut = rng.randint(1, max(1, len(data)))
    cut = max(1, min(cut, len(data)))
    return data[:cut], f"{mode}@{cut}"


_MIME_FIELDS = (b"content-type", b"content-transfer-encoding", b"mime-version", b"content-disposition",
                b"subject", b"from", b"to")


def _pick_fields(rng, fields, k):
    mime_ones = [i for i, f in enumerate(fields) if field_name(f) in _MIME_FIELDS]
    chosen = []
    for _ in range(k):
        pool = mime_ones if mime_ones and rng.random() < 0.7 else range(len(fields))
        chosen.append(rng.choice(list(pool)))
    return chosen


def m_dup_header(rng, data):
    head, sep, body = split_head(data)
    fields = header_fields(head)
    if not fields:
        return add_top_field(data, b"Content-Type: text/html"), "added"
    eol = eol_of(data)
    picks = _pick_fields(rng, fields, rng.randint(1, 3))
    names = []
    for i in picks:
        copy = with_eol(fields[i], eol)
        if field_name(copy) == b"content-type" and rng.random() < 0.5:  # a conflicting copy
            copy = b"Content-Type: " + rng.choice((b"text/html", b"multipart/mixed; boundary=zz",
                                                    b"text/plain; charset=big5", b"message/rfc822")) + eol
        fields.insert(rng.randint(0, len(fields)), copy)
        names.append(field_name(copy).decode("latin-1")[:30])
    if rng.random() < 0.2:  # a duplicate by the hundred
        fields += [with_eol(fields[picks[0]], eol)] * rng.choice((100, 1000, 3000))
        names.append("x many")
    return b"".join(with_eol(f, eol) for f in fields) + sep + body, ",".join(names)


def m_drop_header(rng, data):
    head, sep, body = split_head(data)
    fields = header_fields(head)
    if len(fields) < 2:
        return data, "none"
    picks = sorted(set(_pick_fields(rng, fields, rng.randint(1, 3))), reverse=True)
    names = [field_name(fields[i]).decode("latin-1")[:30] for i in picks]
    for i in picks:
        del fields[i]
    eol = eol_of(data)
    return b"".join(with_eol(f, eol) for f in fields) + sep + body, ",".join(names)


def m_reorder_headers(rng, data):
    head, sep, body = split_head(data)
    fields = header_fields(head)
    eol = eol_of(data)
    fields = [with_eol(f, eol) for f in fields]
    if rng.random() < 0.5:
        rng.shuffle(fields)
        mode = "shuffle"
    elif len(fields) >= 2:
        i, j = rng.sample(range(len(fields)), 2)
        fields[i], fields[j] = fields[j], fields[i]
        mode = "swap"
    else:
        mode = "none"
    return b"".join(fields) + sep + body, mode


CONTENT_TYPES = [b"text/plain", b"TEXT/HTML", b"Text/Plain", b"text", b"text/", b"/plain", b"multipart/mixed",
                 b"multipart/alternative", b"MULTIPART/RELATED", b"multipart/digest", b"multipart/",
                 b"message/rfc822", b"MESSAGE/RFC822", b"message/partial", b"message/external-body",
                 b"application/octet-stream", b"image/gif", b"text/enriched", b"x-unknown/x-garbage", b"",
                 b";;;", b"text/plain text/html", b"multipart/mixed; boundary", b"text/html; charset=",
                 b"text/html\x00", b"text/\xe4\xb8\xad", b'"text/html"', b"text/plain (comment) ",
                 b"application/ms-tnef", b"text/x-uuencode", b"text/calendar", b"multipart/signed"]


def m_content_type(rng, data):
    new = rng.choice(CONTENT_TYPES)
    if rng.random() < 0.15:
        new = bytes(rng.randrange(32, 256) for _ in range(rng.randint(1, 40)))
    out = replace_match(rng, data, _CTYPE, 2, new)
    if out is None:
        return add_top_field(data, b"Content-Type: " + new), b"add " + new[:40]
    return out, new[:40]


TRANSFER_ENCODINGS = [b"base64", b"BASE64", b"Base64 ", b"quoted-printable", b"Quoted-Printable",
                      b"QUOTED-PRINTABLE", b"7bit", b"8bit", b"binary", b"x-uuencode", b"uuencode", b"x-uue",
                      b"bit7", b"base-64", b"b64", b"", b"quoted-printable; base64", b"\x00base64",
                      b"base64 (really)", b'"base64"', b"x-gzip", b"quoted_printable", b"base\xe4\xb8\xad64"]


def m_transfer_encoding(rng, data):
    new = rng.choice(TRANSFER_ENCODINGS)
    if rng.random() < 0.3 or not _CTE.search(data):
        return add_top_field(data, b"Content-Transfer-Encoding: " + new), b"add " + new
    return replace_match(rng, data, _CTE, 2, new), new


CHARSETS = [b"x-unknown", b"unknown-8bit", b"foo", b"charset", b"3Diso-8859-1", b"default", b"us-ascii\x00",
            b"utf-8'en'", b"x" * 300, b"gb_2312-80", b"GB2312", b"gbk", b"cp936", b"gb18030", b"EUC-CN", b"x-gbk",
            b"big5", b"big5-hkscs", b"cp950", b"latin1", b"iso_8859-1", b"ISO-8859-1", b"l1", b"windows-1252",
            b"cp1252", b"ks_c_5601-1987", b"euc-kr", b"shift_jis", b"sjis", b"iso-2022-jp", b"utf8", b"UTF-8",
            b"utf-16", b"utf-16le", b"utf-32", b"utf-7", b"unicode-1-1-utf-7", b"hz-gb-2312", b"hz", b"idna",
            b"punycode", b"rot13", b"rot_13", b"base64", b"zlib", b"hex", b"uu", b"bz2", b"undefined",
            b"unicode_escape", b"raw_unicode_escape", b"mbcs", b"ascii", b"koi8-r", b"mac-roman", b"cp037",
            b"cp1140", b"utf-8-sig", b"UTF-8\xe4", b"iso-8859-99", b"windows-", b"", b"'", b"\xff\xfe",
            b"gb2312_charset", b"134", b"utf-16-be", b"x-mac-chinesesimp", b"tis-620", b"viscii"]


def m_charset(rng, data):
    new = rng.choice(CHARSETS)
    if rng.random() < 0.3:
        new = random_case(rng, new)
    if rng.random() < 0.2:
        new = b'"' + new + b'"'
    where = rng.random()
    if where < 0.3 and _EW_CHARSET.search(data):
        return replace_match(rng, data, _EW_CHARSET, 2, new.replace(b"?", b"") or b"x"), b"encoded word " + new[:40]
    out = replace_match(rng, data, _CHARSET, 2, new)
    if out is None or where > 0.85:
        head, _, _ = split_head(data)
        if _CTYPE.search(head):
            return replace_match(rng, data, _CTYPE, 2, b"text/plain; charset=" + new), b"ctype " + new[:40]
        return add_top_field(data, b"Content-Type: text/plain; charset=" + new), b"add " + new[:40]
    return out, new[:40]


SECTION_NUMBERS = [b"0", b"1", b"00000000001", b"99", b"1000000", b"999999999999999999",
                   b"9223372036854775808", b"1" + b"0" * 40, b"1" + b"0" * 5000, b"-1", b"x", b"", b"0x10",
                   b"\xd9\xa3", b"1e9", b" 1", b"0*0"]


def m_rfc2231(rng, data):
    name = rng.choice((b"charset", b"name", b"filename", b"boundary", b"format", b"title"))
    kind = rng.randrange(7)
    if kind == 0:
        param = b"; " + name + b"*=utf-8''%E4%BD%A0%E5%A5%BD%20free"
    elif kind == 1:
        n = rng.choice(SECTION_NUMBERS)
        param = b"; " + name + b"*" + n + b"*=" + rng.choice((b"utf-8''%41", b"x-unknown''%ZZ%G", b"''", b"'"))
    elif kind == 2:
        parts = rng.sample(SECTION_NUMBERS, 3)
        param = b"".join(b"; " + name + b"*" + n + b'="' + n[:10] + b'"' for n in parts)
    elif kind == 3:  # sections by the hundred, past the 256-parameter cap
        count = rng.choice((10, 300, 2000))
        param = b"".join(b"; " + name + b"*%d*=%%E4%%B8%%AD" % i for i in range(count))
    elif kind == 4:
        param = b"; " + name + b"*0*=" + rng.choice((b"gb2312", b"x-foo", b"utf-16", b"idna", b"base64")) \
            + b"'zh'%D6%D0%CE%C4; " + name + b"*1*=%B0%A1%"
    elif kind == 5:
        param = b"; " + name + b"*=" + bytes(rng.randrange(33, 256) for _ in range(rng.randint(1, 60)))
    else:
        param = b"; " + name + b"*=" + rng.choice(CHARSETS) + b"'" + b"x" * rng.choice((0, 3, 300)) + b"'" \
            + b"%" * rng.randint(0, 5)
    lines = list(_PARAM_LINE.finditer(data))
    if lines and rng.random() < 0.8:
        m = rng.choice(lines)
        return data[:m.end()] + param + data[m.end():], f"{name.decode()} kind {kind} in place"
    return add_top_field(data, b"Content-Type: text/plain" + param), f"{name.decode()} kind {kind} added"


def m_boundary(rng, data):
    made = ""
    if not boundaries(data) or not is_multipart(data) and rng.random() < 0.3:
        data, _ = make_multipart(rng, data)
        made = "made multipart, "
    found = boundaries(data)
    b = rng.choice(found)
    mode = rng.randrange(12)
    delimiter = re.compile(rb"(?m)^--" + re.escape(b) + rb"(--)?[ \t]*(?=\r|\n|$)")
    lines = list(delimiter.finditer(data))
    if mode == 0:  # the parameter removed
        out = _BOUNDARY.sub(b"", data, count=1)
    elif mode == 1:  # another boundary declared
        out = data.replace(b"boundary=\"" + b + b"\"", b"boundary=\"other\"", 1).replace(
            b"boundary=" + b, b"boundary=other", 1)
    elif mode == 2:  # no closing delimiter
        out = re.sub(rb"(?m)^--" + re.escape(b) + rb"--", b"", data)
    elif mode == 3 and lines:  # one delimiter line removed
        m = rng.choice(lines)
        out = data[:m.start()] + data[m.end():]
    elif mode == 4:  # every delimiter removed
        out = delimiter.sub(b"", data)
    elif mode == 5 and lines:  # a delimiter duplicated
        m = rng.choice(lines)
        eol = eol_of(data)
        out = data[:m.end()] + eol + m.group() + data[m.end():]
    elif mode == 6 and lines:  # trailing text on a delimiter line
        m = rng.choice(lines)
        out = data[:m.end()] + rng.choice((b"  garbage", b"--trailing", b"\t", b"x", b"--", b" -- ", b"\x00",
                                           b"=?utf-8?q?x?=")) + data[m.end():]
    elif mode == 7:  # boundary declared twice
        out = replace_match(rng, data, _CTYPE, 2, b"multipart/mixed; boundary=first; boundary=\"second\"") or data
    elif mode == 8:
        out = data.replace(b"boundary=\"" + b + b"\"", b"boundary=\"\"").replace(b"boundary=" + b, b"boundary=")
    elif mode == 9:  # delimiter lines in another case
        out = delimiter.sub(lambda m: m.group().swapcase(), data)
    elif mode == 10:  # a very long boundary
        out = data.replace(b, b + b"x" * rng.choice((60, 200, 5000, 70000)))
    else:  # regular-expression specials in the boundary
        out = data.replace(b, rng.choice((b"a.*+?()[]{}|\\^$", b"(((((", b"--", b"", b" ", b"=_\\")))
    return out, f"{made}mode {mode}"


def m_nest(rng, data):
    depth = rng.choice((1, 1, 2, 3, 10, 60))
    variant = rng.randrange(5)
    if variant == 2:  # each level base64 of the one inside: a third bigger a level
        depth = min(depth, 6)
    eol = eol_of(data)
    out = data
    for level in range(depth):
        b = b"nest" if variant == 1 else b"=_n%d" % level  # variant 1: every level the same boundary
        inner = out
        part_head = b"Content-Type: message/rfc822" + eol
        if variant == 2:
            inner = base64.encodebytes(out)
            part_head += b"Content-Transfer-Encoding: base64" + eol
        if variant == 3:
            part_head += b"Content-Disposition: attachment; filename=\"fwd.eml\"" + eol
        out = (b"From: nest@example.com" + eol + b"Subject: Fwd: level %d" % level + eol
               + b"MIME-Version: 1.0" + eol
               + b"Content-Type: multipart/mixed; boundary=\"" + b + b"\"" + eol + eol
               + b"--" + b + eol + b"Content-Type: text/plain" + eol + eol + b"see attached" + eol
               + b"--" + b + eol + part_head + eol + inner + eol
               + (b"" if variant == 4 else b"--" + b + b"--" + eol))
        if len(out) > MAX_MUTANT_BYTES:
            break
    return out, f"depth {depth} variant {variant}"


def m_nul(rng, data):
    mode = rng.randrange(4)
    if mode == 0:
        out = data
        for _ in range(rng.choice((1, 10, 100))):
            pos = rng.randrange(len(out) + 1)
            out = out[:pos] + b"\x00" + out[pos:]
    elif mode == 1:  # a run of text blanked with NULs
        start = rng.randrange(len(data) + 1)
        length = rng.randint(1, 4096)
        out = data[:start] + b"\x00" * length + data[start + length:]
    elif mode == 2:  # NUL in a header field name or value
        head, sep, body = split_head(data)
        pos = rng.randrange(len(head) + 1)
        out = head[:pos] + b"\x00" + head[pos:] + sep + body
    else:  # every space a NUL
        out = data.replace(b" ", b"\x00")
    return out, f"mode {mode}"


def m_line_ends(rng, data):
    mode = rng.choice(("cr", "crlf", "mixed", "lfcr", "cr-body", "crlf-head", "lf"))
    if mode == "cr":
        out = _EOL.sub(b"\r", data)
    elif mode == "crlf":
        out = _EOL.sub(b"\r\n", data)
    elif mode == "lf":
        out = _EOL.sub(b"\n", data)
    elif mode == "mixed":
        out = _EOL.sub(lambda m: rng.choice((b"\r", b"\n", b"\r\n")), data)
    elif mode == "lfcr":
        out = _EOL.sub(b"\n\r", data)
    else:
        head, sep, body = split_head(data)
        if mode == "cr-body":
            out = head + sep + _EOL.sub(b"\r", body)
        else:
            out = _EOL.sub(b"\r\n", head) + sep + body
    return out, mode


LONG_PATTERNS = [b"a", b"free ", b"\xd6\xd0\xce\xc4", b"QUJD", b"=", b"<", b"&", b" ", b"=?utf-8?q?x?= ",
                 b"http://x.example.com/", b"\xe4\xb8\xad", b"-", b"<b>", b"&amp;", b"=3D"]


def m_long_line(rng, data):
    mode = rng.randrange(4)
    length = rng.choice((10_000, 100_000, 300_000))
    if mode == 0:  # line breaks taken out of a region
        start = rng.randrange(len(data) + 1)
        end = start + rng.choice((1000, 20_000, 200_000))
        return data[:start] + _EOL.sub(b" " if rng.random() < 0.5 else b"", data[start:end]) + data[end:], \
            "unfolded region"
    pattern = rng.choice(LONG_PATTERNS)
    line = (pattern * (length // len(pattern) + 1))[:length]
    if mode == 1:
        pos = body_position(rng, data)
        return data[:pos] + line + data[pos:], f"line {length} of {pattern[:12]!r}"
    if mode == 2:
        return set_top_field(data, b"Subject", line), f"subject {length} of {pattern[:12]!r}"
    eol = eol_of(data)
    folds = rng.choice((1000, 10_000))
    return set_top_field(data, b"Subject", (b"word" + eol + b" ") * folds + b"end"), f"{folds} folds"


ENCODED_WORDS = [
    b"=?utf-8?B?", b"=?utf-8?B?SGVsbG8?=", b"=?utf-8?Q?=ZZ=?=", b"=?unknown?B?SGVsbG8=?=", b"=?utf-8?X?abc?=",
    b"=??B?abc?=", b"=?utf-8*en?Q?abc?=", b"=?utf-8?B?SGV sbG8=?=", b"=?utf-8?B?=?utf-8?B?SGk=?=?=",
    b"=?gb2312?B?w+K30cG0vdM=?=", b"=?gb2312?B?w+K30cG0vdM?=", b"=?iso-8859-1?Q?caf=E9?=", b"=?utf-16?B?AGEAYgA=?=",
    b"=?utf-16?B?AGE?=", b"=?idna?Q?xn--?=", b"=?base64?B?SGVsbG8=?=", b"=?rot13?Q?uryyb?=", b"=?utf-8?Q?a_b_c",
    b"=?utf-8?b?AAAA?=", b"=?UTF-8?Q?=E4=B8?=", b"=?big5?B?pKSk5Q==?=", b"=?iso-2022-jp?B?GyRCJEgbKEI=?=",
    b"=?utf-8?B?4pyT4pyT4pyT?==?utf-8?B?4pyT?=", b"=?=?=?=?=?", b"=?utf-8?Q??=", b"=?utf-8??abc?=",
    b"=?utf-7?Q?+AGEAYgBj-?=", b"=?hz-gb-2312?Q?~{<:Ky~}?=", b"=?x-unknown?Q?=FF=FE?=",
]


def m_encoded_word(rng, data):
    word = rng.choice(ENCODED_WORDS)
    kind = rng.randrange(5)
    if kind == 1:  # inside a word
        word = b"fr" + word + b"ee"
    elif kind == 2:  # a thousand in a row
        word = b" ".join([word] * rng.choice((100, 1000)))
    elif kind == 3:  # one huge word
        word = b"=?utf-8?B?" + base64.b64encode(rng.randbytes(rng.choice((1000, 60_000)))) + b"?="
    where = rng.randrange(4)
    if where == 0:
        head, _, _ = split_head(data)
        subject = re.search(rb"(?im)^subject[ \t]*:([^\r\n]*)", head)
        value = (subject.group(1).strip() if subject else b"") + b" " + word
        return set_top_field(data, b"Subject", value), f"subject kind {kind}"
    if where == 1:
        return set_top_field(data, b"From", word + b" <" + word[:20] + b"@example.com>"), f"from kind {kind}"
    if where == 2:
        lines = list(_PARAM_LINE.finditer(data))
        if lines:
            m = rng.choice(lines)
            return data[:m.end()] + b'; name="' + word + b'"' + data[m.end():], f"param kind {kind}"
    pos = body_position(rng, data)
    return data[:pos] + word + data[pos:], f"body kind {kind}"


def _single_body_encoded(rng, data, encoding: bytes):
    """A single-part message with its body transfer-encoded as `encoding`."""
    head, sep, body = split_head(data)
    eol = eol_of(data)
    if encoding == b"base64":
        encoded = base64.encodebytes(body).replace(b"\n", eol)
    else:
        encoded = binascii.b2a_qp(body, istext=rng.random() < 0.5).replace(b"\n", eol)
    fields = [f for f in header_fields(head) if field_name(f) not in (b"content-transfer-encoding",)]
    fields.append(b"Content-Transfer-Encoding: " + encoding + eol)
    if is_multipart(data):  # a multipart body encoded: itself a mistake mailers make
        pass
    return b"".join(with_eol(f, eol) for f in fields) + (sep or eol) + encoded


def m_base64_padding(rng, data):
    regions = list(re.finditer(rb"(?:^[A-Za-z0-9+/]{16,}={0,2}\r?\n)+", data, re.M))
    made = ""
    if not regions or rng.random() < 0.2:
        data = _single_body_encoded(rng, data, b"base64")
        made = "encoded, "
        regions = list(re.finditer(rb"(?:^[A-Za-z0-9+/]{1,}={0,2}\r?\n?)+", data, re.M))
        if not regions:
            return data, made + "empty"
    region = rng.choice(regions)
    text = region.group()
    mode = rng.randrange(8)
    if mode == 0:
        text = text.replace(b"=", b"")
    elif mode == 1:
        text = re.sub(rb"(\r?\n)", rb"===\1", text, count=rng.randint(1, 20))
    elif mode == 2:
        pos = rng.randrange(len(text) + 1)
        text = text[:pos] + b"=" * rng.randint(1, 3) + text[pos:]
    elif mode == 3:
        for _ in range(rng.randint(1, 20)):
            pos = rng.randrange(len(text) + 1)
            text = text[:pos] + rng.choice((b"!", b"*", b"\x00", b" ", b".", b"-", b"\xff", b"==")) + text[pos:]
    elif mode == 4:
        pos = rng.randrange(len(text))
        text = text[:pos] + text[pos + 1:]
    elif mode == 5:
        text = text.replace(b"\r", b"").replace(b"\n", b"") + b"\n"
    elif mode == 6:
        flat = text.replace(b"\r", b"").replace(b"\n", b"")
        width = rng.choice((1, 3, 75, 77, 1000))
        text = b"\n".join(flat[i:i + width] for i in range(0, len(flat), width)) + b"\n"
    else:
        text = text.rstrip(b"\r\n") + b"====AAAA\n"
    return data[:region.start()] + text + data[region.end():], f"{made}mode {mode}"


def m_qp_soft_break(rng, data):
    made = ""
    if not re.search(rb"(?i)quoted-printable", data) or rng.random() < 0.3:
        data = _single_body_encoded(rng, data, b"quoted-printable")
        made = "encoded, "
    mode = rng.randrange(7)
    eol = eol_of(data)
    if mode == 0:
        out = data.rstrip(b"\r\n") + b"="
    elif mode == 1:
        out = data.rstrip(b"\r\n") + b"=" + eol
    elif mode == 2:
        out = data + b"=4"
    elif mode == 3:
        out = data
        for _ in range(rng.randint(1, 20)):
            pos = body_position(rng, out)
            out = out[:pos] + rng.choice((b"=ZZ", b"=\x00", b"==", b"=4g", b"= \n", b"=\r", b"=E4=" + eol + b"=B8"))\
                + out[pos:]
    elif mode == 4:
        out = data + (b"=" + eol) * rng.choice((10, 10_000))
    elif mode == 5:  # soft breaks between every byte of the last line
        head, sep, body = split_head(data)
        tail = body[-200:]
        out = head + sep + body[:-200] + (b"=" + eol).join(tail[i:i + 1] for i in range(len(tail)))
    else:
        out = data + b"=" * rng.choice((1, 77, 10_000))
    return out, f"{made}mode {mode}"


HTML_PIECES = [b"<div" * 1000, b"<!-- never closed", b"<script>var a = '<p>';", b"<style>p { color: red",
               b"&#99999999999;", b"&#x110000;", b"&#xD800;", b"&#0;", b"&amp &lt &gt", b"&" + b"a" * 1000 + b";",
               b"<![CDATA[ free money", b'<a href="unbalanced>text</a>', b"<<<<>>>>", b"</>", b"<p/><br////>",
               b"<b>text<i>more</b>", b"&#x;", b"&#;", b"&nbsp&nbsp&nbsp", b"<title>" * 500, b"<!DOCTYPE",
               b"<img src=x alt='", b"<" + b"x" * 50_000, b"&#" + b"9" * 5000 + b";", b"<table><tr><td>" * 300,
               b"<font face=\"\xe4\xb8\xad\">", b"<?xml ", b"<!--><!---->-->", b"<p>fr<!-- -->ee</p>",
               b"<textarea>", b"<![endif]-->", b"</" * 2000]


def m_html(rng, data):
    pieces = b" ".join(rng.choice(HTML_PIECES) for _ in range(rng.randint(1, 4)))
    made = ""
    if rng.random() < 0.5 and not is_multipart(data):
        data = set_top_field(data, b"Content-Type", b"text/html; charset=" + rng.choice((b"utf-8", b"gb2312",
                                                                                         b"iso-8859-1")))
        made = "as text/html, "
    pos = body_position(rng, data)
    return data[:pos] + b"<html><body>" + pieces + data[pos:], f"{made}{len(pieces)} bytes"


def m_mbox_from(rng, data):
    line = b"From sender@example.com Mon Jan  1 00:00:00 2001"
    eol = eol_of(data)
    mode = rng.randrange(4)
    if mode == 0:
        return line + eol + data, "at start"
    head, sep, body = split_head(data)
    if mode == 1:
        fields = header_fields(head)
        fields.insert(rng.randint(0, len(fields)), line + eol)
        return b"".join(with_eol(f, eol) for f in fields) + sep + body, "in header"
    if mode == 2:
        return with_eol(head, eol) + line + eol + sep + body, "last header line"
    pos = body_position(rng, data)
    return data[:pos] + eol + rng.choice((b"From ", b">From ", b">>From ")) + b"me today" + eol + data[pos:], \
        "in body"


def m_header_syntax(rng, data):
    head, sep, body = split_head(data)
    mode = rng.randrange(7)
    eol = eol_of(data)
    if mode == 0:  # no blank line between header and body
        out = head + body
    elif mode == 1:  # the first line a continuation
        out = b" " + data
    elif mode == 2:
        out = add_top_field(data, b"This line has no colon")
    elif mode == 3:
        out = add_top_field(data, rng.choice((b"Content Type: text/html", b"Content-Type : text/html",
                                              b": empty name", b"Subj\xe4ct: 8-bit name", b"\x00: nul name",
                                              b"Content-Type:", b"Content-Type:\t\t")))
    elif mode == 4:  # raw 8-bit bytes in the subject
        out = set_top_field(data, b"Subject", rng.choice((b"\xd6\xd0\xce\xc4\xd3\xca\xbc\xfe", b"caf\xe9",
                                                          b"\xe4\xb8\xad\xe6\x96\x87", b"\xff\xfe\x00a",
                                                          b"\x1b$B$3$s\x1b(B")))
    elif mode == 5:  # a body line that looks like a field, then a continuation
        out = head + sep + b"X-Not-A-Header: value" + eol + b"  continued" + eol + body
    else:  # a header block alone: no body at all
        out = head.rstrip(b"\r\n")
    return out, f"mode {mode}"


def m_dup_region(rng, data):
    if rng.random() < 0.5 and boundaries(data):
        b = rng.choice(boundaries(data))
        starts = [m.start() for m in re.finditer(rb"(?m)^--" + re.escape(b), data)]
        if len(starts) >= 2:
            i = rng.randrange(len(starts) - 1)
            part = data[starts[i]:starts[i + 1]]
            copies = max(1, min(rng.choice((10, 100, 600)), (512 * 1024) // max(1, len(part))))
            return data[:starts[i + 1]] + part * copies + data[starts[i + 1]:], f"part x{copies}"
    start = rng.randrange(len(data) + 1)
    length = rng.randint(1, 64 * 1024)
    piece = data[start:start + length]
    copies = rng.choice((1, 2, 10))
    return data[:start] + piece * copies + data[start:], f"{len(piece)} bytes x{copies}"


def m_uuencode(rng, data):
    eol = eol_of(data)
    payload = bytes(rng.randrange(256) for _ in range(rng.randint(0, 200)))
    lines = [b"begin " + rng.choice((b"644", b"999", b"x", b"0644")) + b" file.txt"]
    for i in range(0, len(payload), 45):
        lines.append(binascii.b2a_uu(payload[i:i + 45]).rstrip(b"\n"))
    if rng.random() < 0.5:
        lines.append(rng.choice((b"M" + b"!" * 80, b"~~~~", b"\x00", b"`")))
    if rng.random() < 0.5:
        lines += [b"`", b"end"]
    block = eol.join(lines) + eol
    out = data
    if rng.random() < 0.5:
        out = set_top_field(out, b"Content-Transfer-Encoding", rng.choice((b"x-uuencode", b"uuencode")))
    pos = body_position(rng, out)
    return out[:pos] + eol + block + out[pos:], f"{len(payload)} bytes"


MUTATORS = {
    "flip": m_flip, "insert": m_insert, "delete": m_delete, "truncate": m_truncate,
    "dup_header": m_dup_header, "drop_header": m_drop_header, "reorder_headers": m_reorder_headers,
    "content_type": m_content_type, "transfer_encoding": m_transfer_encoding, "charset": m_charset,
    "rfc2231": m_rfc2231, "boundary": m_boundary, "nest": m_nest, "nul": m_nul, "line_ends": m_line_ends,
    "long_line": m_long_line, "encoded_word": m_encoded_word, "base64_padding": m_base64_padding,
    "qp_soft_break": m_qp_soft_break, "html": m_html, "mbox_from": m_mbox_from,
    "header_syntax": m_header_syntax, "dup_region": m_dup_region, "uuencode": m_uuencode,
}
# Cheap byte damage is common in real mail; the costly growth mutators are rarer.
WEIGHTS = {name: 1.0 for name in MUTATORS}
WEIGHTS.update({"long_line": 0.5, "nest": 0.6, "dup_region": 0.6})


def mutant_seed(seed: int, ident: str, k: int) -> str:
    return f"{seed}/{ident}/{k}"


def mutate(data: bytes, rng: random.Random, count: int | None = None) -> tuple[bytes, list[str]]:
    """Several mutations of `data`, chosen and parameterised by `rng`."""
    count = rng.randint(2, 6) if count is None else count
    names = rng.choices(list(MUTATORS), weights=[WEIGHTS[n] for n in MUTATORS], k=count)
    applied = []
    for name in names:
        data, detail = MUTATORS[name](rng, data)
        if isinstance(detail, bytes):
            detail = detail.decode("latin-1")
        applied.append(f"{name}({detail!s:.60})")
        if len(data) > MAX_MUTANT_BYTES:
            data = data[:MAX_MUTANT_BYTES]
            applied.append("cap")
    if not data:  # an empty file is a different case (exit 4 "empty file"), tested elsewhere
        data = b"\n"
        applied.append("empty->newline")
    return data, applied


def make_mutant(seed: int, ident: str, original: bytes, k: int) -> tuple[bytes, list[str]]:
    return mutate(original, random.Random(mutant_seed(seed, ident, k)))


# =============================================================== the corpora

def corpus_messages(names=CORPUS_NAMES) -> list[str]:
    """Every message as 'CORPUS/RELATIVE-PATH', in index order."""
    out = []
    for name in names:
        index = CORPORA / name / "index"
        if not index.exists():
            continue
        for line in index.read_text().splitlines():
            _, relative = line.split("\t")
            out.append(f"{name}/{relative}")
    return out


def read_original(ident: str) -> bytes:
    return (CORPORA / ident).read_bytes()


def parse_mutant_id(text: str) -> tuple[str, int]:
    ident, _, k = text.rpartition("#")
    return ident, int(k)


# =============================================================== scoring in-process

_SCORER = None
_DEADLINE = 10.0


def init_worker(model_path: str, deadline: float, memory_limit: int | None = MEMORY_LIMIT) -> None:
    """Open the model and cap the address space."""
    global _SCORER, _DEADLINE
    from spamnb.model.opening import open_scorer

    if memory_limit:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    _SCORER = open_scorer(model_path)
    _DEADLINE = deadline


def decode_failed(raw: bytes) -> bool:
    """Whether the core's decode_message fell back to plain text for `raw`
    (its safety net caught a panic: parse_failed, the 6th of its tuple).
    Scoring decodes inside the core's tokenize, out of sight, so this decodes
    again."""
    from spamnb import _core

    return bool(_core.decode_message(raw)[5])


def decoder_exception(raw: bytes) -> str:
    """The panic the core's decode_message safety net caught for `raw`: its
    message, as Rust's panic hook writes it to stderr, captured by decoding
    again with file descriptor 2 sent to a temporary file."""
    from spamnb import _core

    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as caught:
        os.dup2(caught.fileno(), 2)
        try:
            _core.decode_message(raw)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        caught.seek(0)
        text = caught.read().decode("utf-8", "replace").strip()
    return text[-2000:] or "the core fell back to plain text; its panic hook wrote nothing"


def score_one(raw: bytes) -> dict:
    """Score `raw` as classify does; what happened, and how long it took."""
    from spamnb.app.deadline import score_within, timed_out

    wall, cpu = time.perf_counter(), time.process_time()
    problem = None
    score = None
    try:
        score = score_within(lambda: _SCORER.score_message(raw), _DEADLINE)
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # exit 70 in the CLI
        problem = {"kind": "exception", "error": f"{type(error).__name__}: {error}"[:500],
                   "traceback": traceback.format_exc(limit=-8)}
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if score is not None:
        p, lo = score.probability, score.log_odds
        if timed_out(score):
            problem = {"kind": "timeout", "error": score.reason}
        elif not (isinstance(p, float) and math.isfinite(p) and 0.0 <= p <= 1.0) or math.isnan(lo) \
                or score.label not in ("spam", "ham", "unsure"):
            problem = {"kind": "bad_score", "error": f"probability={p!r} log_odds={lo!r} label={score.label!r}"}
    failed = problem is None and decode_failed(raw)
    out = {"wall": wall, "cpu": cpu, "label": score.label if score else None, "problem": problem,
           "decode_failed": failed}
    if failed:
        out["decode_error"] = decoder_exception(raw)
    return out


TOP = 15


def signature(error: str) -> str:
    """What groups alike failures: the exception's last line with numbers as N."""
    last = error.strip().splitlines()[-1] if error.strip() else "?"
    return re.sub(r"\d+", "N", last)[:200]


def _keep_top(items: list, new, key, n=TOP) -> list:
    items.append(new)
    items.sort(key=key, reverse=True)
    del items[n:]
    return items


def run_chunk(task) -> dict:
    """Mutate and score the mutants of a few messages; a summary of them."""
    seed, jobs = task
    stats = {"mutants": 0, "bytes": 0, "wall": 0.0, "cpu": 0.0, "labels": Counter(), "mutators": Counter(),
             "failures": [], "decode_failed": {}, "decode_failed_count": 0, "slowest": [], "slowest_per_mb": [],
             "mutate_cpu": 0.0, "max_rss_kb": 0}
    for ident, ks in jobs:
        try:
            original = read_original(ident)
        except OSError as error:
            stats["failures"].append({"kind": "unreadable", "id": ident, "error": str(error)})
            continue
        for k in ks:
            t = time.process_time()
            raw, applied = make_mutant(seed, ident, original, k)
            stats["mutate_cpu"] += time.process_time() - t
            for entry in applied:
                stats["mutators"][entry.partition("(")[0]] += 1
            result = score_one(raw)
            mid = f"{ident}#{k}"
            stats["mutants"] += 1
            stats["bytes"] += len(raw)
            stats["wall"] += result["wall"]
            stats["cpu"] += result["cpu"]
            stats["labels"][str(result["label"])] += 1
            record = {"id": mid, "bytes": len(raw), "wall": round(result["wall"], 4), "cpu": round(result["cpu"], 4),
                      "cpu_s_per_mb": round(result["cpu"] / max(len(raw), 1) * 1e6, 3), "mutations": applied}
            if result["problem"]:
                stats["failures"].append({**result["problem"], **record, "seed": seed})
            if result["decode_failed"]:
                stats["decode_failed_count"] += 1
                cause = signature(result["decode_error"])
                group = stats["decode_failed"].setdefault(cause, {"count": 0, "example": None})
                group["count"] += 1
                if group["example"] is None:
                    group["example"] = {**record, "seed": seed, "error": result["decode_error"]}
            _keep_top(stats["slowest"], record, key=lambda r: r["cpu"])
            if len(raw) >= 64 * 1024:
                _keep_top(stats["slowest_per_mb"], record, key=lambda r: r["cpu_s_per_mb"])
    import resource

    stats["max_rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return stats


def merge(total: dict, part: dict) -> None:
    for key in ("mutants", "bytes", "wall", "cpu", "mutate_cpu", "decode_failed_count"):
        total[key] += part[key]
    total["labels"].update(part["labels"])
    total["mutators"].update(part["mutators"])
    for failure in part["failures"]:  # every one counted, the first 500 kept whole
        total["failure_kinds"][f"{failure['kind']}: {signature(failure.get('error', ''))}"] += 1
        if len(total["failures"]) < 500:
            total["failures"].append(failure)
    for cause, group in part["decode_failed"].items():
        mine = total["decode_failed"].setdefault(cause, {"count": 0, "example": group["example"]})
        mine["count"] += group["count"]
    for r in part["slowest"]:
        _keep_top(total["slowest"], r, key=lambda r: r["cpu"])
    for r in part["slowest_per_mb"]:
        _keep_top(total["slowest_per_mb"], r, key=lambda r: r["cpu_s_per_mb"])
    total["max_rss_kb"] = max(total["max_rss_kb"], part["max_rss_kb"])


def in_process(model: str, messages: list[str], per_message: int, seed: int, workers: int, deadline: float,
               chunk: int = 10, log=print) -> dict:
    """Every message's mutants 0..per_message-1 scored on `workers` processes."""
    import multiprocessing

    order = list(messages)
    random.Random(seed).shuffle(order)  # corpora interleaved, so progress is representative
    tasks = [(seed, [(ident, range(per_message)) for ident in order[i:i + chunk]])
             for i in range(0, len(order), chunk)]
    total = {"mutants": 0, "bytes": 0, "wall": 0.0, "cpu": 0.0, "mutate_cpu": 0.0, "labels": Counter(),
             "mutators": Counter(), "failures": [], "failure_kinds": Counter(), "decode_failed": {},
             "decode_failed_count": 0, "slowest": [],
             "slowest_per_mb": [], "max_rss_kb": 0, "stuck": []}
    expected = len(order) * per_message
    started = time.perf_counter()
    last = started
    # A chunk holds chunk * per_message mutants, each under the deadline; a
    # chunk that does not come back long after is a hang the alarm missed.
    patience = chunk * per_message * deadline + 120
    with multiprocessing.get_context("fork").Pool(workers, init_worker, (model, deadline)) as pool:
        results = pool.imap_unordered(run_chunk, tasks)
        for _ in tasks:
            try:
                part = results.next(timeout=patience)
            except multiprocessing.TimeoutError:
                total["stuck"].append(f"no chunk came back in {patience:.0f} s; the pool was stopped")
                log(total["stuck"][-1])
                pool.terminate()
                break
            merge(total, part)
            now = time.perf_counter()
            if now - last > 30:
                last = now
                rate = total["mutants"] / (now - started)
                log(f"  {total['mutants']:,}/{expected:,} mutants, {rate:.0f}/s, "
                    f"{len(total['failures'])} failures, eta {(expected - total['mutants']) / rate / 60:.1f} min")
    total["elapsed"] = time.perf_counter() - started
    return total


# =============================================================== the real command line

def write_sample(directory: Path, seed: int, mutants: list[tuple[str, int]]) -> dict[str, dict]:
    """Each mutant written to `directory`; {file name: its record}."""
    written = {}
    for number, (ident, k) in enumerate(mutants):
        raw, applied = make_mutant(seed, ident, read_original(ident), k)
        name = f"m{number:06d}"
        (directory / name).write_bytes(raw)
        written[name] = {"id": f"{ident}#{k}", "mutations": applied, "bytes": len(raw)}
    return written


def spamnb_command(*args) -> list[str]:
    return [sys.executable, "-m", "spamnb", *args]


def spamnb_env() -> dict:
    env = dict(os.environ)
    env.pop("SPAMNB_MODEL", None)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def classify_batch(args) -> dict:
    model, files, deadline = args
    started = time.perf_counter()
    try:
        done = subprocess.run(spamnb_command("classify", "--format", "tsv", "--model", model, "--jobs", "1",
                                             "--timeout", f"{deadline:g}", *files),
                              capture_output=True, env=spamnb_env(), timeout=len(files) * deadline + 300,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return {"status": "hang", "files": files, "stdout": "", "stderr": "", "seconds": time.perf_counter() - started}
    return {"status": done.returncode, "files": files, "stdout": done.stdout.decode("utf-8", "replace"),
            "stderr": done.stderr.decode("utf-8", "replace"), "seconds": time.perf_counter() - started}


def check_classify(result: dict, names: dict[str, str]) -> list[dict]:
    """Problems in one classify run: exit 70, a traceback, a file with neither a row
    nor a line on stderr, a score outside [0, 1], a deadline hit."""
    problems = []
    status, stderr = result["status"], result["stderr"]
    if status not in (0, 4):  # 0: all scored; 4: some file was not mail (reported on stderr)
        problems.append({"kind": f"classify exit {status}", "files": result["files"][:3],
                         "stderr": stderr[-2000:]})
    if "Traceback" in stderr:
        problems.append({"kind": "classify traceback", "stderr": stderr[-3000:], "files": result["files"][:3]})
    seen = Counter()
    for line in result["stdout"].splitlines()[1:]:
        cells = line.split("\t")
        if len(cells) != 4:
            problems.append({"kind": "classify bad row", "row": line[:300]})
            continue
        path, label, score, _ = cells
        base = path.split("/")[-1].split("#")[0]  # an mbox message is shown as FILE#N
        seen[base] += 1
        try:
            value = float(score)
        except ValueError:
            value = float("nan")
        if not 0.0 <= value <= 1.0 or label not in ("spam", "ham", "unsure"):
            problems.append({"kind": "classify bad score", "row": line[:300], "id": names.get(base)})
    for path in result["files"]:
        base = os.path.basename(path)
        if not seen[base] and base not in stderr:
            problems.append({"kind": "classify lost a file", "file": base, "id": names.get(base)})
    if "not scored within" in stderr:
        problems.append({"kind": "classify deadline hit", "stderr": stderr[-2000:]})
    return problems


def filter_one(args) -> dict:
    model, path, deadline = args
    data = Path(path).read_bytes()
    with open(path, "rb") as handle:
        try:
            done = subprocess.run(spamnb_command("filter", "--model", model, "--timeout", f"{deadline:g}"),
                                  stdin=handle, capture_output=True, env=spamnb_env(), timeout=deadline + 120)
        except subprocess.TimeoutExpired:
            return {"file": path, "status": "hang", "problems": [{"kind": "filter hang"}]}
    status, out, err = done.returncode, done.stdout, done.stderr.decode("utf-8", "replace")
    problems = []
    if status not in (0, 75):
        problems.append({"kind": f"filter exit {status}", "stderr": err[-2000:]})
    if "Traceback" in err:
        problems.append({"kind": "filter traceback", "stderr": err[-3000:]})
    if not out:
        problems.append({"kind": "filter empty stdout"})
    placement = None
    if status == 75 and out != data:
        problems.append({"kind": "filter 75 but message changed"})
    if status == 0:
        placement = filter_placement(data, out)
    return {"file": path, "status": status, "problems": problems, "placement": placement,
            "deadline": "not scored within" in out.decode("latin-1")}


def filter_placement(data: bytes, out: bytes) -> str:
    """Where filter put its header: "ok" when taking out its one X-Spamnb-Status
    line gives the input back and the line sat in the header block (before
    the first blank line, and before any line spamnb's own reader takes as the
    body's first); else what differs."""
    from spamnb._core import read_headers

    found = list(re.finditer(rb"X-Spamnb-Status: [^\r\n]*(?:\r\n|\r|\n)", out))
    if len(found) != 1:
        return f"{len(found)} status lines"
    m = found[0]
    rest = out[:m.start()] + out[m.end():]
    blank = _BLANK_LINE.search(data)
    if rest != data:
        if rest.startswith(data) and blank is None:
            return f"a line end added to a message with no blank line ({len(rest) - len(data)} bytes)"
        if rest.startswith(data):
            return f"header after the body ({len(rest) - len(data)} bytes added; at {m.start()} of {len(data)})"
        if blank is not None and rest.endswith(data[blank.end():]):
            return "header block bytes changed (body intact)"
        return "body bytes changed"
    header_end = len(data) if blank is None else _EOL.match(data, blank.start()).end()
    if m.start() > header_end:
        return f"header after the blank line (at {m.start()}, blank line at {header_end})"
    _, body_start, _ = read_headers(data, 0, len(data))
    if m.start() > body_start:
        # A damaged header line (no colon, a NUL in the name) ends the header
        # block for spamnb's reader as for the email package; filter goes by
        # the blank line, as MTAs and procmail do.
        return f"header after a damaged header line (at {m.start()}, reader's body at {body_start})"
    return "ok"


def through_cli(model: str, messages: list[str], per_message: int, seed: int, workers: int, deadline: float,
                cli_count: int, filter_count: int, batch: int, keep: Path | None, log=print) -> dict:
    from multiprocessing.pool import ThreadPool

    rng = random.Random(f"{seed}/cli")
    population = [(ident, k) for ident in messages for k in range(per_message)]
    sample = rng.sample(population, min(cli_count, len(population)))
    directory = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="spamnb-fuzz-cli-"))
    directory.mkdir(parents=True, exist_ok=True)
    report = {"classify": {"mutants": len(sample), "processes": 0, "statuses": Counter(), "rows": 0,
                           "problems": [], "seconds": 0.0},
              "filter": {"mutants": 0, "statuses": Counter(), "problems": [], "placement": Counter(),
                         "placement_examples": {}}}
    try:
        written = write_sample(directory, seed, sample)
        names = {name: record["id"] for name, record in written.items()}
        files = sorted(str(directory / name) for name in written)
        batches = [(model, files[i:i + batch], deadline) for i in range(0, len(files), batch)]
        started = time.perf_counter()
        with ThreadPool(workers) as pool:
            for result in pool.imap_unordered(classify_batch, batches):
                c = report["classify"]
                c["processes"] += 1
                c["statuses"][str(result["status"])] += 1
                c["rows"] += max(0, len(result["stdout"].splitlines()) - 1)
                for problem in check_classify(result, names):
                    c["problems"].append(problem)
            report["classify"]["seconds"] = time.perf_counter() - started
            log(f"  classify: {len(files)} mutants in {len(batches)} processes, "
                f"exit statuses {dict(report['classify']['statuses'])}")
            chosen = rng.sample(files, min(filter_count, len(files)))
            f = report["filter"]
            f["mutants"] = len(chosen)
            started = time.perf_counter()
            for result in pool.imap_unordered(filter_one, [(model, path, deadline) for path in chosen]):
                f["statuses"][str(result["status"])] += 1
                name = os.path.basename(result["file"])
                for problem in result["problems"]:
                    f["problems"].append({**problem, "id": names[name], "mutations": written[name]["mutations"]})
                if result["placement"] is not None:
                    kind = result["placement"].split(" (")[0]
                    f["placement"][kind] += 1
                    examples = f["placement_examples"].setdefault(kind, [])
                    if kind != "ok" and len(examples) < 3:
                        examples.append({"id": names[name], "placement": result["placement"],
                                         "mutations": written[name]["mutations"]})
            f["seconds"] = time.perf_counter() - started
            log(f"  filter: {len(chosen)} mutants, exit statuses {dict(f['statuses'])}, "
                f"placement {dict(f['placement'])}")
    finally:
        if not keep:
            for path in directory.iterdir():
                path.unlink()
            directory.rmdir()
    return report


# =============================================================== model, replay, main

def train_model(work: Path, log=print) -> Path:
    """A model trained on the spamassassin training part (bench/corpora.split)."""
    sys.path.insert(0, str(ROOT / "bench"))
    import corpora

    model = work / "spamassassin-train.spamnb"
    if model.exists():
        return model
    train, _ = corpora.split("spamassassin")
    for label, path in train:
        folder = work / "spamassassin-train" / ("spam" if label else "ham")
        folder.mkdir(parents=True, exist_ok=True)
        link = folder / path.name
        if not link.exists():
            link.symlink_to(path)
    log(f"training {model} on {len(train)} spamassassin messages")
    subprocess.run(spamnb_command("train", str(work / "spamassassin-train"), "--model", str(model), "-q"),
                   check=True, env=spamnb_env())
    return model


def replay(model: str, seed: int, mutant: str, deadline: float, write: str | None) -> int:
    ident, k = parse_mutant_id(mutant)
    raw, applied = make_mutant(seed, ident, read_original(ident), k)
    print(f"{mutant} (seed {seed}): {len(raw):,} bytes")
    for entry in applied:
        print(f"  {entry}")
    if write:
        Path(write).write_bytes(raw)
        print(f"written to {write}")
    init_worker(model, deadline, memory_limit=None)
    result = score_one(raw)
    from spamnb.model.opening import open_scorer

    try:
        score = open_scorer(model).score_message(raw)
        print(f"score {score.probability:.6f} label {score.label} log-odds {score.log_odds:.3f}")
    except Exception:
        traceback.print_exc()
    print(f"cpu {result['cpu']:.3f} s, wall {result['wall']:.3f} s, problem: {result['problem']}")
    if result["decode_failed"]:
        print("decode_message fell back to plain text:\n" + result["decode_error"])
    return 1 if result["problem"] else 0


def summary_lines(report: dict) -> list[str]:
    ip = report.get("in_process")
    lines = []
    if ip:
        mb = ip["bytes"] / 1e6
        lines += [f"in-process: {ip['mutants']:,} mutants of {report['messages']:,} messages, {mb:.0f} MB, "
                  f"{ip['elapsed']:.0f} s wall on {report['workers']} workers "
                  f"(scoring {ip['cpu']:.0f} s CPU, {ip['cpu'] / max(mb, 1e-9):.3f} s/MB; mutating {ip['mutate_cpu']:.0f} s)",
                  f"  failures: {sum(ip['failure_kinds'].values())} {dict(ip['failure_kinds'])}; "
                  f"stuck chunks: {len(ip['stuck'])}",
                  f"  decode_message's safety net (read as plain text): {ip['decode_failed_count']}"
                  + "".join(f"\n    {g['count']} x {cause}  e.g. {g['example']['id']}"
                            for cause, g in ip["decode_failed"].items()),
                  f"  labels: {dict(ip['labels'])}; peak RSS of a worker {ip['max_rss_kb'] / 1024:.0f} MB",
                  "  slowest (CPU s): " + ", ".join(f"{r['id']} {r['cpu']:.3f} s/{r['bytes'] / 1e6:.2f} MB"
                                                    for r in ip["slowest"][:5]),
                  "  most s/MB (>= 64 KB): " + ", ".join(f"{r['id']} {r['cpu_s_per_mb']:.2f} s/MB"
                                                          for r in ip["slowest_per_mb"][:5])]
    cli = report.get("cli")
    if cli:
        c, f = cli["classify"], cli["filter"]
        lines += [f"classify: {c['mutants']:,} mutants, {c['processes']} processes, exit statuses "
                  f"{dict(c['statuses'])}, {c['rows']:,} rows, {len(c['problems'])} problems",
                  f"filter: {f['mutants']} mutants, exit statuses {dict(f['statuses'])}, "
                  f"{len(f['problems'])} problems, placement {dict(f['placement'])}"]
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="model file (default: train one on the spamassassin training part)")
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "spamnb-fuzz-mutated"),
                        help="scratch directory for the trained model (outside the repository)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--per-message", type=int, default=5, help="mutants of each message")
    parser.add_argument("--messages", type=int, default=0, help="a seeded sample of this many messages (0: all)")
    parser.add_argument("--corpora", default=",".join(CORPUS_NAMES))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--deadline", type=float, default=10.0, help="seconds per message (score_within)")
    parser.add_argument("--cli", type=int, default=2000, help="mutants through `spamnb classify` (0: none)")
    parser.add_argument("--cli-batch", type=int, default=250, help="files per classify process")
    parser.add_argument("--filter", type=int, default=300, help="of those, mutants through `spamnb filter`")
    parser.add_argument("--no-in-process", action="store_true", help="only the command-line part")
    parser.add_argument("--keep", help="write the CLI sample here and keep it (outside the repository!)")
    parser.add_argument("--report", help="write the JSON report here")
    parser.add_argument("--replay", metavar="CORPUS/PATH#K", help="rebuild and score one mutant")
    parser.add_argument("--write", help="with --replay: write the mutant's bytes here")
    args = parser.parse_args(argv)

    if not (CORPORA / "spamassassin" / "index").exists():
        print(f"no corpora at {CORPORA}", file=sys.stderr)
        return 2
    if args.model:
        model = args.model
    else:
        work = Path(args.work)
        work.mkdir(parents=True, exist_ok=True)
        model = str(train_model(work))
    if args.replay:
        return replay(model, args.seed, args.replay, args.deadline, args.write)

    messages = corpus_messages(tuple(args.corpora.split(",")))
    if args.messages:
        messages = sorted(random.Random(args.seed).sample(messages, min(args.messages, len(messages))))
    report = {"command": " ".join(["python", "bench/fuzz_mutated.py", *(argv if argv is not None else sys.argv[1:])]),
              "seed": args.seed, "model": model, "messages": len(messages), "per_message": args.per_message,
              "workers": args.workers, "deadline": args.deadline, "started": time.strftime("%Y-%m-%d %H:%M:%S"),
              "replay": f"python bench/fuzz_mutated.py --model MODEL --seed {args.seed} --replay 'CORPUS/PATH#K'"}
    if not args.no_in_process:
        print(f"scoring {len(messages) * args.per_message:,} mutants of {len(messages):,} messages "
              f"on {args.workers} workers (seed {args.seed}, deadline {args.deadline:g} s)")
        report["in_process"] = in_process(model, messages, args.per_message, args.seed, args.workers, args.deadline)
    if args.cli:
        print(f"through the command line: {args.cli} mutants with classify, {args.filter} with filter")
        report["cli"] = through_cli(model, messages, args.per_message, args.seed, args.workers, args.deadline,
                                    args.cli, args.filter, args.cli_batch, args.keep)
    report["finished"] = time.strftime("%Y-%m-%d %H:%M:%S")
    for line in summary_lines(report):
        print(line)
    failures = report.get("in_process", {}).get("failures", [])
    for failure in failures[:20]:
        print(f"FAIL {failure['kind']}: {failure['id']} ({failure['error'][:200]})\n"
              f"     replay: python bench/fuzz_mutated.py --model {model} --seed {args.seed} "
              f"--replay '{failure['id']}'")
    if args.report:
        Path(args.report).write_text(json.dumps(report, indent=1, default=lambda o: dict(o) if isinstance(
            o, Counter) else str(o)) + "\n")
        print(f"report written to {args.report}")
    cli = report.get("cli", {})
    bad = bool(failures or report.get("in_process", {}).get("stuck") or cli.get("classify", {}).get("problems")
               or cli.get("filter", {}).get("problems"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
