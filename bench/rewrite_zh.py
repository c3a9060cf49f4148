"""ccert_zh disguised as a spammer would disguise it (火星文), scored beside the
plain mail: does a rewritten message score like its original?

Protocol (variant characters must score like plain text):

- train on the first 70 % of each class of ccert_zh (index order,
  bench/corpora.py's split), plain, content headers only (Subject, From, To,
  Cc, Reply-To, MIME-Version, Content-*: its routing headers leak the label);
- score the other 30 % twice: plain, and rewritten.  A rewritten message is
  its plain copy with the decoded text of its Subject and of every text part
  (plain and HTML, tags and links left alone) turned into Traditional
  characters (OpenCC s2t, s2tw or s2hk) and then, at rates drawn per message
  from a seeded generator, given disguises:
    - 火星文 forms of common characters: a radical added (涐 for 我, 岢 for
      可), a rare look-alike or variant (値 for 值, 嚸 for 點, 蕙 for 惠, 髮
      for 發), an enclosed ideograph (㊣ for 正);
    - variant forms Unicode's Unihan database records (kZVariant,
      kSemanticVariant, kSpoofingVariant) for a common character, as a
      spammer with a variant list would pick them (when the unicode-data
      Debian package is installed; else skipped and said);
    - compatibility forms that look the same: Kangxi radicals (⼈ for 人),
      CJK compatibility ideographs, enclosed ideographs (㊀ for 一);
    - full-width letters and digits (ＱＱ１２３).
  It is re-encoded as UTF-8 (charset=utf-8, base64 or 8 bit, and the Subject
  as an RFC 2047 UTF-8 word), so the result is real mail.
- spamnb through its command line (`train --headers content`, `classify
  --format jsonl`); bogofilter (fresh database, -C) on the same files when
  it is installed.

Reported for plain and rewritten: 1-ROCA % of the scores, ham lost / spam
flagged / unsure at the model's stored cutoffs (bogofilter: its own), and
for spamnb the mean absolute difference between each rewritten message's
log-odds and its plain original's (all, ham, spam).

A second spamnb run, "no MIME fields", trains and scores with the content
headers less Content-* and MIME-Version: re-encoding as UTF-8 changes those
fields (charset=utf-8, which this 2005 collection's ham alone uses, weighs
toward ham), so the difference between the two runs is what the re-encoding
costs, and what is left in the second is what the characters cost.

    .venv/bin/python bench/rewrite_zh.py [--seed 1] [--tool spamnb --tool bogofilter]
        [--keep DIR] [--limit N] [--no-diagnostic] [--write]

--keep DIR writes the laid-out messages there (outside the repository: never
commit corpus mail) instead of a temporary directory; --limit N takes only
the first N test messages of each class (a quick look, not the protocol).
"""

from __future__ import annotations

import argparse
import email
import email.charset
import email.header
import email.policy
import json
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpora  # noqa: E402
from benchmarks_file import publish, reproduce  # noqa: E402
import tool_bogofilter  # noqa: E402
from tool_bogofilter import ensure_bogofilter  # noqa: E402
from tool_spamnb import command as spamnb_command  # noqa: E402
from tool_spamnb import version as spamnb_version  # noqa: E402
from toolkit import Item, Skip, SplitJob, run  # noqa: E402
from corpora import strip_headers  # noqa: E402

from spamnb.app.metrics import one_minus_roca_percent  # noqa: E402

# ------------------------------------------------------------ the disguises

# Forms seen in Chinese spam of the 2000s-2010s and in the seeds,
# keyed by the Traditional character (rewriting converts to Traditional
# first).  Each is a real code point that renders like, or reads as, the
# character it stands for.
SPAM_FORMS = {
    "我": "涐硪莪", "你": "伱妳沵", "可": "岢", "正": "㊣", "發": "髮", "點": "嚸",
    "值": "値", "惠": "蕙", "的": "菂", "得": "嘚", "不": "芣", "微": "嶶",
    "徵": "徴", "為": "沩",
}

UNIHAN = Path("/usr/share/unicode/Unihan_Variants.txt.bz2")
# Enough common characters that Unihan variants touch a good share of text;
# the GB2312 level-1 block (3,755 most common characters) is the pool.
UNIHAN_FIELDS = ("kZVariant", "kSemanticVariant", "kSpoofingVariant")


def gb2312_level1(char: str) -> bool:
    try:
        code = char.encode("gb2312")
    except UnicodeEncodeError:
        return False
    return len(code) == 2 and 0xB0 <= code[0] <= 0xD7


def in_gb2312(char: str) -> bool:
    try:
        char.encode("gb2312")
    except UnicodeEncodeError:
        return False
    return True


def unihan_forms(t2s) -> dict[str, str]:
    """{Traditional form of a common character: its Unihan variants that plain
    Simplified text never writes (outside GB2312, BMP only: what fonts show)}.
    Unihan is read by the fold table's own generator (tools/variants_table.py)."""
    if not UNIHAN.exists():
        return {}
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    from variants_table import unihan_pairs

    out: dict[str, set[str]] = {}
    for field, pairs in unihan_pairs().items():
        if field not in UNIHAN_FIELDS:
            continue
        for plain, form in pairs:  # both directions of each line, as read there
            # A disguise reads as its character: a form that t2s turns into
            # another character of plain text (煙 → 烟, which Unihan calls a
            # variant of 完) is a different word.
            if (gb2312_level1(t2s(plain)) and not in_gb2312(form) and not in_gb2312(t2s(form))
                    and "\u3400" <= form <= "\u9fff"):
                out.setdefault(plain, set()).add(form)
    return {plain: "".join(sorted(forms)) for plain, forms in out.items()}


EQUIVALENT = Path("/usr/share/unicode/EquivalentUnifiedIdeograph.txt")


def compatibility_forms() -> dict[str, str]:
    """{character: look-alikes}: those NFKC folds (Kangxi radicals, CJK
    compatibility ideographs, enclosed ideographs) and the CJK radicals that
    Unicode calls equivalent to an ideograph (⻔ for 门), which it does not."""
    out: dict[str, list[str]] = {}
    if EQUIVALENT.exists():
        for line in EQUIVALENT.read_text(encoding="utf-8").splitlines():
            fields = line.split("#")[0].split(";")
            if len(fields) == 2 and ".." not in fields[0] and 0x2E80 <= int(fields[0], 16) <= 0x2EFF:
                form, plain = chr(int(fields[0], 16)), chr(int(fields[1], 16))
                if gb2312_level1(plain):
                    out.setdefault(plain, []).append(form)
    for start, end in ((0x2F00, 0x2FD6), (0xF900, 0xFADA), (0x3220, 0x3244), (0x3280, 0x32B1)):
        for code in range(start, end):
            form = chr(code)
            plain = unicodedata.normalize("NFKC", form)
            if len(plain) == 1 and "\u4e00" <= plain <= "\u9fff":
                out.setdefault(plain, []).append(form)
    return {plain: "".join(forms) for plain, forms in out.items()}


def full_width(char: str) -> str:
    return chr(ord(char) + 0xFEE0) if char.isascii() and char.isalnum() else char


class Rewriter:
    """Seeded rewriting of decoded text; one per message (its own rates)."""

    def __init__(self, tables, rng: random.Random):
        self.tables = tables
        self.rng = rng
        self.converter = rng.choice(["s2t", "s2t", "s2tw", "s2hk"])
        self.spam_rate = rng.uniform(0.2, 0.9)
        self.unihan_rate = rng.uniform(0.0, 0.3)
        self.compat_rate = rng.uniform(0.0, 0.3)
        self.width_rate = rng.uniform(0.0, 0.6)

    def text(self, text: str) -> str:
        text = self.tables.convert(self.converter, text)
        rng, out = self.rng, []
        for char in text:
            if char in self.tables.spam and rng.random() < self.spam_rate:
                char = rng.choice(self.tables.spam[char])
            elif char in self.tables.unihan and rng.random() < self.unihan_rate:
                char = rng.choice(self.tables.unihan[char])
            elif char in self.tables.compat and rng.random() < self.compat_rate:
                char = rng.choice(self.tables.compat[char])
            elif char.isascii() and char.isalnum() and rng.random() < self.width_rate:
                char = full_width(char)
            out.append(char)
        return "".join(out)

    # Links, addresses, tags and entities stay as they are: a spammer wants
    # the link to work and the HTML to render.
    _KEEP_PLAIN = re.compile(r"((?:https?://|www\.)[^\s<>\"']+|[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+)")
    _KEEP_HTML = re.compile(r"(<[^>]*>|&#?\w+;)")

    def plain(self, text: str) -> str:
        pieces = self._KEEP_PLAIN.split(text)
        return "".join(p if i % 2 else self.text(p) for i, p in enumerate(pieces))

    def html(self, text: str) -> str:
        pieces = self._KEEP_HTML.split(text)
        return "".join(p if i % 2 else self.plain(p) for i, p in enumerate(pieces))


class Tables:
    def __init__(self):
        import opencc

        self._converters = {name: opencc.OpenCC(name) for name in ("s2t", "s2tw", "s2hk", "t2s")}
        self.spam = SPAM_FORMS
        self.unihan = unihan_forms(self._converters["t2s"].convert)
        self.compat = compatibility_forms()

    def convert(self, name: str, text: str) -> str:
        return self._converters[name].convert(text)


# ------------------------------------------------------------- the messages

_GB = {"gb2312", "gbk", "x-gbk", "euc-cn", "cn-gb", "gb_2312-80", "csgb2312", "x-euc-cn", "chinese"}


def decode_bytes(payload: bytes, declared: str | None) -> str:
    """Text as a reader's mail program would show it: the declared charset
    when it decodes, else GB18030 (ccert_zh's undeclared or misdeclared
    bodies are GB), else Big5, else GB18030 with replacement characters."""
    declared = (declared or "").strip().lower()
    tries = []
    if declared in _GB:
        tries.append("gb18030")
    elif declared and declared not in ("us-ascii", "iso-8859-1", "charset"):
        tries.append(declared)
    tries += ["gb18030", "big5"]
    for name in tries:
        try:
            return payload.decode(name)
        except (LookupError, UnicodeDecodeError):
            continue
    return payload.decode("gb18030", "replace")


def decode_subject(value: str) -> str:
    out = []
    for chunk, charset in email.header.decode_header(value):
        out.append(decode_bytes(chunk, charset) if isinstance(chunk, bytes) else chunk)
    return "".join(out)


def rewrite_message(data: bytes, rewriter: Rewriter) -> bytes:
    message = email.message_from_bytes(data, policy=email.policy.compat32)
    if message["Subject"] is not None:
        subject = decode_subject(str(message["Subject"]))
        message.replace_header("Subject", email.header.Header(rewriter.plain(subject), "utf-8").encode())
    utf8 = email.charset.Charset("utf-8")
    utf8.body_encoding = email.charset.BASE64 if rewriter.rng.random() < 0.5 else None  # None: 8 bit
    if message.is_multipart() is False and message.get_content_maintype() == "multipart":
        # A multipart type whose boundary never comes: mail programs (and
        # spamnb) show the body as text.  The email package cannot write such
        # a message back when its body is 8 bit (get_payload turns the bytes
        # into replacement characters), so the body is appended here: UTF-8,
        # 8 bit, the type line left as it was.
        text = decode_bytes(message.get_payload(decode=True) or b"", message.get_content_charset())
        del message["Content-Transfer-Encoding"]
        message["Content-Transfer-Encoding"] = "8bit"
        message.set_payload("")
        head = message.as_bytes(policy=email.policy.compat32.clone(linesep="\n"))
        return head + rewriter.plain(text).encode("utf-8")
    for part in message.walk():
        if part.is_multipart() or part.get_content_maintype() != "text":
            continue
        if (part.get("Content-Disposition") or "").strip().lower().startswith("attachment"):
            continue
        payload = part.get_payload(decode=True) or b""
        text = decode_bytes(payload, part.get_content_charset())
        text = rewriter.html(text) if part.get_content_subtype() == "html" else rewriter.plain(text)
        del part["Content-Transfer-Encoding"]
        part.set_payload(text, utf8)
    return message.as_bytes(policy=email.policy.compat32.clone(linesep="\n"))


# ------------------------------------------------------------------ running

@dataclass
class Layout:
    """One set of messages on disk: train/spam, train/ham and test/ of files."""
    root: Path
    train_spam: list[Path]
    train_ham: list[Path]
    test: list[Path]
    test_labels: list[int]

    @property
    def test_dir(self) -> Path:
        return self.root / "test"


def run_bogofilter(layout: Layout):
    """bogofilter trained on the layout's training files and scored on its test
    files, through the comparison bench's runner (fresh database)."""
    job = SplitJob(layout.root, [Item(1, p) for p in layout.train_spam] + [Item(0, p) for p in layout.train_ham],
                   [Item(label, p) for label, p in zip(layout.test_labels, layout.test)], content_headers=False)
    outcome = tool_bogofilter.split(job)
    scores = [0.5 if score is None else score for score in outcome.scores]
    return SimpleNamespace(scores=scores, verdicts=outcome.verdicts, labels=layout.test_labels)


def lay_out(root: Path, seed: int, limit: int | None) -> tuple[Layout, Layout, dict]:
    """(plain layout, rewritten layout sharing its training files, counts)."""
    train, test = corpora.split("ccert_zh")
    if limit:
        test = [item for item in test if item[0] == 0][:limit] + [item for item in test if item[0] == 1][:limit]
    plain = Layout(root / "plain", [], [], [], [])
    rewritten = Layout(root / "rewritten", [], [], [], [])
    for folder in (root / "train" / "spam", root / "train" / "ham", plain.test_dir, rewritten.test_dir):
        folder.mkdir(parents=True)
    for number, (label, source) in enumerate(train):
        target = root / "train" / ("spam" if label else "ham") / f"{number:05d}"
        target.write_bytes(strip_headers(source.read_bytes()))
        (plain.train_spam if label else plain.train_ham).append(target)
    rewritten.train_spam, rewritten.train_ham = plain.train_spam, plain.train_ham
    tables = Tables()
    failed = 0
    for number, (label, source) in enumerate(test):
        data = strip_headers(source.read_bytes())
        name = f"{number:05d}"
        (plain.test_dir / name).write_bytes(data)
        try:
            disguised = rewrite_message(data, Rewriter(tables, random.Random(f"{seed}:{number}")))
        except Exception as error:  # counted and shown: the plain copy stands in
            failed += 1
            print(f"could not rewrite test message {name}: {error!r}", file=sys.stderr)
            disguised = data
        (rewritten.test_dir / name).write_bytes(disguised)
        for layout, path in ((plain, plain.test_dir / name), (rewritten, rewritten.test_dir / name)):
            layout.test.append(path)
            layout.test_labels.append(label)
    counts = {"train": len(train), "test": len(test), "rewrite_failed": failed,
              "unihan_forms": sum(map(len, tables.unihan.values())),
              "compat_forms": sum(map(len, tables.compat.values())),
              "spam_forms": sum(map(len, tables.spam.values()))}
    return plain, rewritten, counts


def spamnb_scores(model: Path, layout: Layout) -> tuple[list[float], list[str]]:
    done = run(spamnb_command() + ["classify", "--model", str(model), "--format", "jsonl",
                                   str(layout.test_dir)], ok=(0, 4))
    by_name = {}
    for line in done.stdout.splitlines():
        record = json.loads(line)
        by_name[Path(record["path"]).name] = (record["log_odds"], record["label"])
    pairs = [by_name.get(path.name, (0.0, "unsure")) for path in layout.test]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def row(tool, kind, labels, scores, verdicts, diff="–") -> str:
    """A table row: 1-ROCA, then ham lost, spam flagged and unsure (% and count)."""
    ham = [v for lab, v in zip(labels, verdicts) if lab == 0]
    spam = [v for lab, v in zip(labels, verdicts) if lab == 1]

    def share(part, whole):
        return f"{100.0 * part / len(whole):.2f} ({part})"

    return (f"| {tool} | {kind} | {one_minus_roca_percent(labels, scores):.4f} | "
            f"{share(ham.count('spam'), ham)} | {share(spam.count('spam'), spam)} | "
            f"{share(verdicts.count('unsure'), verdicts)} | {diff} |")


def run_spamnb_pair(root: Path, plain: Layout, rewritten: Layout, title: str, headers: str) -> list[str]:
    """Train on the plain training part with these headers; the table rows
    for the plain and the rewritten test part."""
    model = root / f"model-{len(headers)}.spamnb"
    started = time.perf_counter()
    run(spamnb_command() + ["train", "--spam", str(root / "train/spam"), "--ham",
                            str(root / "train/ham"), "--model", str(model), "--headers", headers, "-q"])
    train_seconds = time.perf_counter() - started
    started = time.perf_counter()
    plain_scores, plain_verdicts = spamnb_scores(model, plain)
    disguised_scores, disguised_verdicts = spamnb_scores(model, rewritten)
    classify_seconds = time.perf_counter() - started
    labels = plain.test_labels
    diffs = [abs(a - b) for a, b in zip(plain_scores, disguised_scores)]

    def mean_of(label=None):
        return statistics.fmean(d for d, lab in zip(diffs, labels) if label is None or lab == label)

    diff = f"{mean_of():.3f} / {mean_of(0):.3f} / {mean_of(1):.3f}"
    return [row(title, "plain", labels, plain_scores, plain_verdicts),
            row(title, "rewritten", labels, disguised_scores, disguised_verdicts, diff),
            f"<!-- {title}: train {train_seconds:.0f} s, classify both {classify_seconds:.0f} s -->"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tool", action="append", choices=["spamnb", "bogofilter"])
    parser.add_argument("--keep", type=Path, help="lay the messages out here and leave them")
    parser.add_argument("--limit", type=int, help="only the first N test messages of each class")
    parser.add_argument("--write", action="store_true",
                        help="also put the table into BENCHMARKS.md (between its rewrite_zh markers)")
    parser.add_argument("--no-diagnostic", action="store_true",
                        help="skip the second spamnb run that reads no MIME fields (Content-*, MIME-Version)")
    args = parser.parse_args(argv)
    tools = args.tool or ["spamnb", "bogofilter"]

    if args.keep:
        if args.keep.exists():
            shutil.rmtree(args.keep)
        root = args.keep
    else:
        root = Path(tempfile.mkdtemp(prefix="rewrite_zh-"))
    lines = []
    try:
        started = time.perf_counter()
        plain, rewritten, counts = lay_out(root, args.seed, args.limit)
        ham, spam = plain.test_labels.count(0), plain.test_labels.count(1)
        lines.append(f"ccert_zh, content headers: train {counts['train']} plain, test {ham} ham + {spam} spam "
                     f"plain and rewritten (seed {args.seed}; {counts['rewrite_failed']} could not be "
                     f"rewritten; disguise forms: {counts['spam_forms']} spam, {counts['unihan_forms']} "
                     f"Unihan, {counts['compat_forms']} compatibility; laid out in "
                     f"{time.perf_counter() - started:.0f} s)")
        if not counts["unihan_forms"]:
            lines.append(f"(no Unihan forms: {UNIHAN} is missing; apt-get install unicode-data)")
        lines += ["", "| tool | test mail | 1-ROCA % | ham lost % (n) | spam flagged % (n) | unsure % (n) | "
                  "mean abs Δ log-odds (all / ham / spam) |", "|---|---|---:|---:|---:|---:|---:|"]
        if "spamnb" in tools:
            lines.insert(0, f"spamnb {spamnb_version()}")
            runs = [("spamnb", "content")]
            if not args.no_diagnostic:
                runs.append(("spamnb, no MIME fields", "subject,from,to,cc,reply-to"))
            for title, headers in runs:
                lines += run_spamnb_pair(root, plain, rewritten, title, headers)
        if "bogofilter" in tools:
            try:
                version = ensure_bogofilter()
                lines.insert(0, f"bogofilter {version}")
                results = [run_bogofilter(plain), run_bogofilter(rewritten)]  # each its own fresh db
                diff_b = statistics.fmean(abs(a - b) for a, b in zip(results[0].scores, results[1].scores))
                for kind, result in zip(("plain", "rewritten"), results):
                    lines.append(row("bogofilter", kind, result.labels, result.scores, result.verdicts,
                                     f"{diff_b:.3f} (spamicity)" if kind == "rewritten" else "–"))
            except Skip as why:
                lines.append(f"bogofilter skipped: {why}")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    lines += [""] + reproduce("python bench/rewrite_zh.py --write")
    publish("rewrite_zh", "\n".join(lines), args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
