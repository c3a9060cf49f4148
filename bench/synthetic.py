"""Synthetic mail for the scale measures of bench/perf.py.

Real corpora stop at a few thousand messages; the scale table (10 k to 1 M
messages) and the 75,000-message memory test need more.  The messages made
here are meant to cost a filter what real mail costs:

- words: the real spamassassin vocabulary, ranked by frequency separately
  in spam and in ham (so the classes differ the way real mail does), drawn
  with Zipf-Mandelbrot frequencies p(r) ∝ (r + 2.7)^-1.05;
- a vocabulary that keeps growing with the corpus (Heaps' law): a share
  TAIL_SHARE (8 %) of the words comes from an unbounded tail of made-up
  words (random syllables: "kobarine", "tuzevo"), ranked by a Lomax (Pareto
  II) law of shape TAIL_SHAPE, whose rank-frequency law r^-(1 + shape) gives
  distinct words growing about as N^0.6 in the number N of words written:
  ~0.2 M distinct words for 10 k messages, ~1 M for 100 k, ~4.7 M for 1 M
  (before a tokenizer's word pairs);
- lengths: log-normal, median 180 body words (mean ~250, ~2.3 KB a message);
- headers From, To, Subject, Date, Message-ID, MIME-Version; bodies are
  text/plain (most), multipart/alternative with an HTML part, base64-encoded
  text/plain, or text/plain with a small base64 attachment; spam has more
  HTML than ham;
- half spam, half ham; the same seed gives the same bytes.

Written as two mbox files, spam.mbox and ham.mbox, in a folder:

    .venv/bin/python bench/synthetic.py --messages 10000 --out /tmp/synth [--seed 1]

or from Python: `synthetic.write_corpus(folder, messages, seed)`.
"""

from __future__ import annotations

import argparse
import base64
import re
import shutil
import sys
import time
from collections import Counter
from functools import lru_cache
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpora  # noqa: E402

ZIPF_EXPONENT = 1.05
ZIPF_OFFSET = 2.7
TAIL_SHARE = 0.08
TAIL_SHAPE = 0.6
TAIL_SCALE = 100_000.0
MEDIAN_WORDS = 180
MAX_WORDS = 3000
BYTES_PER_MESSAGE = 2300  # an estimate for the free-space check
HTML_SHARE = {1: 0.35, 0: 0.12}
BASE64_SHARE = 0.08
ATTACHMENT_SHARE = 0.05
CHUNK = 5000

_WORD = re.compile(rb"[a-z][a-z']{1,18}")
_MARKUP = re.compile(rb"<[^>]*>|&#?\w+;")
_ENCODED_LINE = re.compile(rb"^[A-Za-z0-9+/=]{40,}$", re.MULTILINE)
SYLLABLES = [c + v for c in "bcdfghjklmnprstvwz" for v in ("a", "e", "i", "o", "u", "ai", "ou")] + \
            [c + v + e for c in "bdgkmt" for v in "aeiou" for e in "nrs"]


@lru_cache(maxsize=1)
def real_vocabulary(min_count: int = 2) -> dict[int, np.ndarray]:
    """{label: array of words (bytes), most frequent first} from spamassassin
    bodies, with HTML tags, entities and base64 lines taken out."""
    counts = {0: Counter(), 1: Counter()}
    for label, path in corpora.load_index("spamassassin"):
        data = path.read_bytes()
        body = data[data.find(b"\n\n") + 2:]
        counts[label].update(_WORD.findall(_MARKUP.sub(b" ", _ENCODED_LINE.sub(b"", body)).lower()))
    out = {}
    for label, counter in counts.items():
        words = [word for word, n in counter.most_common() if n >= min_count]
        out[label] = np.array(words, dtype=object)
    return out


_SYLLABLE_ARRAY = np.array([s.encode() for s in SYLLABLES], dtype="S3")
# One fixed permutation of the syllables per position, so consecutive ranks do not look alike.
_PERMUTATIONS = np.random.default_rng(7).permuted(np.tile(np.arange(len(SYLLABLES)), (8, 1)), axis=1)


def made_up_words(ranks: np.ndarray) -> np.ndarray:
    """Pronounceable words ("kobarine", "tuzevo") for tail ranks, as an object
    array of bytes: each rank written in bijective base len(SYLLABLES), at
    least two syllables, so distinct ranks give distinct words and the
    frequent (low) ranks the short ones."""
    base = len(SYLLABLES)
    value = ranks.astype(np.int64) + base + 1
    words = np.zeros(len(ranks), dtype="S24")
    position = 0
    while (value > 0).any():
        live = value > 0
        digit = (value - 1) % base
        value = np.where(live, (value - 1) // base, 0)
        syllable = _SYLLABLE_ARRAY[_PERMUTATIONS[position % len(_PERMUTATIONS)][digit]]
        words = np.where(live, np.strings.add(words, syllable), words)
        position += 1
    return words.astype(object)


class Sampler:
    """Word draws for one class: Zipf over the real ranked words plus a growing tail."""

    def __init__(self, words: np.ndarray, rng: np.random.Generator):
        self.words = words
        self.rng = rng
        # Inverse of the continuous Zipf-Mandelbrot law on [1, len + 1): rank = floor(x).
        power = 1.0 - ZIPF_EXPONENT
        self.low = (1.0 + ZIPF_OFFSET) ** power
        self.high = (len(words) + 1.0 + ZIPF_OFFSET) ** power
        self.power = power

    def draw(self, count: int) -> np.ndarray:
        """An object array of `count` words."""
        rng = self.rng
        x = (self.low + rng.random(count) * (self.high - self.low)) ** (1.0 / self.power) - ZIPF_OFFSET
        out = self.words[np.clip(x.astype(np.int64) - 1, 0, len(self.words) - 1)]
        tail = rng.random(count) < TAIL_SHARE
        n_tail = int(tail.sum())
        if n_tail:
            # Lomax: density ∝ (x + scale)^-(shape + 1); rank = floor(x).
            ranks = np.floor(TAIL_SCALE * (rng.random(n_tail) ** (-1.0 / TAIL_SHAPE) - 1.0))
            ranks = np.minimum(ranks, 2.0 ** 40).astype(np.int64)
            unique, inverse = np.unique(ranks, return_inverse=True)
            out[tail] = made_up_words(unique)[inverse]
        return out


def _date(number: int) -> tuple[str, str]:
    """(mbox From_ date, Date header) for message `number`, one minute apart from 2024-01-01."""
    seconds = 1_704_067_200 + number * 61
    struct = time.gmtime(seconds)
    return (time.strftime("%a %b %d %H:%M:%S %Y", struct),
            time.strftime("%a, %d %b %Y %H:%M:%S +0000", struct))


def texts(words: np.ndarray, lengths: np.ndarray, per_line: int = 12) -> list[bytes]:
    """Split a run of words into message bodies of `lengths` words, 12 words a
    line: one bytes join for the whole run, then slices."""
    ends = np.cumsum(lengths)
    starts = ends - lengths
    index = np.arange(len(words)) - np.repeat(starts, lengths)  # word number inside its message
    separators = np.where((index % per_line == per_line - 1) | (index == np.repeat(lengths, lengths) - 1),
                          b"\n", b" ").astype(object)
    tokens = np.empty(2 * len(words), dtype=object)
    tokens[0::2] = words
    tokens[1::2] = separators
    blob = b"".join(tokens.tolist())
    sizes = np.fromiter(map(len, words), dtype=np.int64, count=len(words)) + 1
    byte_ends = np.cumsum(sizes)[ends - 1]
    byte_starts = np.concatenate(([0], byte_ends[:-1]))
    return [blob[a:b] for a, b in zip(byte_starts.tolist(), byte_ends.tolist())]


def _message(label: int, number: int, text: bytes, subject: np.ndarray, names: np.ndarray,
             kind: int, rng: np.random.Generator) -> bytes:
    envelope_date, date = _date(number)
    sender = names[0].decode()
    domain = names[1].decode() + (".com" if label else ".org")
    head = (f"From {sender}@{domain} {envelope_date}\n"
            f"From: {sender.capitalize()} <{sender}@{domain}>\n"
            f"To: {names[2].decode()}@example.net\n"
            f"Subject: {b' '.join(subject).decode()}\n"
            f"Date: {date}\n"
            f"Message-ID: <{number}.{label}@{domain}>\n"
            "MIME-Version: 1.0\n").encode()
    if kind == 0:
        return head + b"Content-Type: text/plain; charset=us-ascii\n\n" + text + b"\n\n"
    boundary = f"=_b{number}".encode()
    if kind == 1:  # HTML alternative
        html = (b"<html><body><p>" + text.replace(b"\n", b"</p>\n<p>") + b"</p>\n<a href=\"http://www."
                + domain.encode() + b"/" + names[3] + b"\">" + names[3] + b"</a></body></html>")
        return (head + b"Content-Type: multipart/alternative; boundary=\"" + boundary + b"\"\n\n"
                b"--" + boundary + b"\nContent-Type: text/plain; charset=us-ascii\n\n" + text + b"\n"
                b"--" + boundary + b"\nContent-Type: text/html; charset=us-ascii\n\n" + html + b"\n"
                b"--" + boundary + b"--\n\n")
    if kind == 2:  # base64 text
        return (head + b"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n"
                + base64.encodebytes(text) + b"\n")
    attachment = base64.encodebytes(rng.bytes(int(rng.integers(600, 3000))))
    return (head + b"Content-Type: multipart/mixed; boundary=\"" + boundary + b"\"\n\n"
            b"--" + boundary + b"\nContent-Type: text/plain; charset=us-ascii\n\n" + text + b"\n"
            b"--" + boundary + b"\nContent-Type: application/octet-stream; name=\"" + names[3] + b".bin\"\n"
            b"Content-Transfer-Encoding: base64\n"
            b"Content-Disposition: attachment; filename=\"" + names[3] + b".bin\"\n\n"
            + attachment + b"--" + boundary + b"--\n\n")


def write_mbox(path: Path, label: int, count: int, seed: int) -> int:
    """Write `count` messages of one class to an mbox; returns the bytes written."""
    rng = np.random.default_rng([seed, label])
    sampler = Sampler(real_vocabulary()[label], rng)
    names_sampler = Sampler(real_vocabulary()[0][:5000], rng)
    written = 0
    with open(path, "wb") as out:
        for start in range(0, count, CHUNK):
            n = min(CHUNK, count - start)
            lengths = np.clip(rng.lognormal(np.log(MEDIAN_WORDS), 0.8, n).astype(np.int64), 5, MAX_WORDS)
            subject_lengths = rng.integers(2, 9, n)
            subject_ends = np.cumsum(subject_lengths)
            bodies = texts(sampler.draw(int(lengths.sum())), lengths)
            subjects = sampler.draw(int(subject_ends[-1]))
            names = names_sampler.draw(4 * n)
            roll = rng.random(n)
            html, b64 = HTML_SHARE[label], BASE64_SHARE
            kinds = np.where(roll < html, 1, np.where(roll < html + b64, 2,
                             np.where(roll < html + b64 + ATTACHMENT_SHARE, 3, 0)))
            chunk = []
            for i in range(n):
                number = 2 * (start + i) + label
                chunk.append(_message(label, number, bodies[i],
                                      subjects[subject_ends[i] - subject_lengths[i]:subject_ends[i]],
                                      names[4 * i:4 * i + 4], int(kinds[i]), rng))
            data = b"".join(chunk)
            out.write(data)
            written += len(data)
    return written


def write_corpus(folder: Path, messages: int, seed: int = 1) -> tuple[Path, Path]:
    """spam.mbox and ham.mbox with messages // 2 each (spam gets the odd one)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    spam, ham = folder / "spam.mbox", folder / "ham.mbox"
    write_mbox(spam, 1, messages - messages // 2, seed)
    write_mbox(ham, 0, messages // 2, seed)
    return spam, ham


def fits(folder: Path, messages: int, margin: float = 2.0) -> tuple[bool, str]:
    """Whether `messages` synthetic messages (times `margin`, for models and
    copies) fit in the free space where `folder` is; with a message saying so."""
    probe = Path(folder)
    while not probe.exists():
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    need = int(messages * BYTES_PER_MESSAGE * margin)
    if free < need:
        return False, f"{messages:,} messages need ~{need / 1e9:.1f} GB, only {free / 1e9:.1f} GB free in {probe}"
    return True, ""


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stats", action="store_true", help="also count distinct words (slow)")
    arguments = parser.parse_args(argv)
    ok, why = fits(arguments.out, arguments.messages, margin=1.0)
    if not ok:
        sys.exit(why)
    started = time.perf_counter()
    spam, ham = write_corpus(arguments.out, arguments.messages, arguments.seed)
    seconds = time.perf_counter() - started
    size = spam.stat().st_size + ham.stat().st_size
    print(f"{arguments.messages:,} messages, {size / 1e6:.1f} MB in {seconds:.1f} s "
          f"({arguments.messages / seconds:,.0f} msg/s): {spam}, {ham}")
    if arguments.stats:
        distinct = set()
        for path in (spam, ham):
            with open(path, "rb") as source:
                for line in source:
                    distinct.update(_WORD.findall(line))
        print(f"{len(distinct):,} distinct words")


if __name__ == "__main__":
    main()
