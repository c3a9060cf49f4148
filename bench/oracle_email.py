"""Hold spamnb's MIME reading to a third-party oracle: the standard library's
`email` package with policy.default, so a disagreement shows a message read otherwise than a mail client would.

For each message, both readers' text parts are compared as words:

- spamnb: the texts of the core's `decode_message(raw)` (spamnb._core);
- email: every leaf part of `BytesParser(policy=policy.default)` whose main
  type is text, in walk order, read by `get_content()` (transfer encoding
  and declared charset undone, as the package does), but for attachments
  other than text/plain; a message/rfc822 part adds its Subject and From,
  a multipart that the package could not split (a str payload) is read as
  one text body.  The oracle's HTML goes through spamnb's own
  `html_to_text`, so that only the MIME reading is compared, not HTML
  rendering.

Words are spamnb's tokens of the joined text (no bigrams, no stop words
dropped).  Each message lands in one class:

- `same`: the same words, in the same order;
- `same words, other order`: the same multiset;
- `charset`: the same words once every word holding a character outside
  ASCII is read as a blank on both sides (the two read 8-bit text
  differently: spamnb sniffs, email trusts the declared charset and
  replaces what does not decode);
- `charset: 8-bit text read as CJK by spamnb only` / `charset: CJK read
  differently`: spamnb's sniffing (GB18030, Big5, Shift-JIS...) reads
  two-byte text where the package uses the declared (or no) charset with
  replacement; GBK and Big5 second bytes can be ASCII letters, so the
  ASCII words differ too;
- `junk line in the header block`: spamnb read more header fields (it
  skips a junk line when a field follows; the package starts the body);
- `size cap`: spamnb read its 500,000 characters of text, the package all;
- `attached message's From`: policy.default's str() of an attached
  message's From drops the comment that spamnb shows ("a@b (Name)");
- `oracle error`: the email package raised;
- `differ`: anything else, listed with the first words only one side has.

    python bench/oracle_email.py [--corpus NAME]... [--cpython] [--show 30] [--limit N]
    python bench/oracle_email.py --only-cpython | --evasion

`--cpython` reads the email package's own test messages
(Lib/test/test_email/data/msg_*.txt of the running Python), when installed.
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CORPORA = ROOT.parent / "shared" / "corpora"
CORPUS_NAMES = ("spamassassin", "trec06p", "ccert_zh")


def cpython_messages():
    try:
        import test.test_email as package
    except ImportError:
        return []
    data = Path(package.__file__).parent / "data"
    return [(f"cpython/{path.name}", path.read_bytes()) for path in sorted(data.glob("msg_*.txt"))]


def corpus_messages(name: str, limit: int | None):
    index = CORPORA / name / "index"
    if not index.exists():
        return []
    out = []
    for line in index.read_text().splitlines():
        _, relative = line.split("\t")
        out.append((f"{name}/{relative}", (CORPORA / name / relative).read_bytes()))
        if limit and len(out) >= limit:
            break
    return out


def oracle_texts(raw: bytes) -> list[str]:
    """The text parts the email package reads, as described above."""
    from email import policy
    from email.parser import BytesParser

    from spamnb._core import HtmlBudget, html_to_text

    message = BytesParser(policy=policy.default).parsebytes(raw)
    out = []
    budget = HtmlBudget()

    def visit(part):
        ctype = part.get_content_type()
        if part.is_multipart():
            if ctype in ("message/rfc822", "message/global", "message/news"):
                inner = part.get_payload(0)
                shown = [str(inner[name]) for name in ("subject", "from") if inner[name] is not None]
                if shown:
                    out.append("\n".join(shown))
            for child in part.iter_parts() if not ctype.startswith("message/") else [part.get_payload(0)]:
                visit(child)
            return
        disposition = part.get_content_disposition()
        if ctype.startswith("multipart/"):  # a multipart the package could not split
            payload = part.get_payload(decode=True) or b""
            text = payload.decode(part.get_content_charset() or "ascii", "replace")
            if any(marker in text[:4096].lower() for marker in ("<html", "<body", "<p>", "<br", "<div", "<table", "<font")):
                text = html_to_text(text, budget)[0]
            out.append(text)
            return
        if not ctype.startswith("text/") or (disposition == "attachment" and ctype != "text/plain"):
            return
        try:
            text = part.get_content()
        except (LookupError, UnicodeError):  # an unknown charset: the package gives up on the part
            text = (part.get_payload(decode=True) or b"").decode("ascii", "replace")
        if ctype == "text/html":
            text = html_to_text(text, budget)[0]
        out.append(text)

    visit(message)
    return out


def words(texts: list[str]) -> list[str]:
    from spamnb.text.tokens import TokenizerOptions, text_tokens

    options = TokenizerOptions(bigrams=False, stopwords=frozenset())
    return text_tokens("\n".join(texts), options)


# A run of characters outside ASCII with the word characters joined to it:
# how the readers differ there depends on the charset each chose (a GBK or
# Big5 second byte can be an ASCII letter, a replacement character or a
# soft hyphen can end a word or not).
_NOT_ASCII = re.compile(r"[0-9A-Za-z_]*+[^\x00-\x7f]++[0-9A-Za-z_]*+")


def ascii_words(texts: list[str]) -> list[str]:
    """The words left when every word holding a character outside ASCII is a blank."""
    return words([_NOT_ASCII.sub(" ", text) for text in texts])


def our_texts_of(raw: bytes) -> list[str]:
    """spamnb's text parts: the third of the core's decode_message tuple
    (headers, addresses, texts, urls, attachments, parse_failed, cut)."""
    from spamnb._core import decode_message

    return list(decode_message(raw)[2])


def compare(raw: bytes) -> tuple[str, str]:
    our_texts = our_texts_of(raw)
    ours = words(our_texts)
    try:
        their_texts = oracle_texts(raw)
    except Exception as error:  # the oracle's own failure
        return "oracle error", f"{type(error).__name__}: {str(error)[:80]}"
    theirs = words(their_texts)
    if ours == theirs:
        return "same", ""
    if collections.Counter(ours) == collections.Counter(theirs):
        return "same words, other order", ""
    a, b = collections.Counter(ours), collections.Counter(theirs)
    only_ours = list((a - b).elements())
    only_theirs = list((b - a).elements())
    detail = (f"spamnb only {len(only_ours)} {only_ours[:8]!r} email only {len(only_theirs)} "
              f"{only_theirs[:8]!r}")
    return _explain(raw, our_texts, their_texts, only_ours, only_theirs), detail


def _explain(raw, our_texts, their_texts, only_ours, only_theirs) -> str:
    """Which known difference between the readers explains a message's."""
    from email import message_from_bytes, policy

    from spamnb._core import MAX_TEXT_CHARS, parse, read_headers

    if sum(map(len, our_texts)) >= MAX_TEXT_CHARS:
        return "size cap"
    fields, _, _ = read_headers(raw, 0, len(raw))
    if len(fields) > len(message_from_bytes(raw, policy=policy.default).keys()):
        return "junk line in the header block"
    if ascii_words(our_texts) == ascii_words(their_texts):
        return "charset"
    ours_cjk, theirs_cjk = any(map(_CJK.search, only_ours)), any(map(_CJK.search, only_theirs))
    if ours_cjk and not theirs_cjk:
        return "charset: 8-bit text read as CJK by spamnb only"
    if ours_cjk and theirs_cjk:
        return "charset: CJK read differently"
    _, parts = parse(raw, 500, 50)   # ("part", fields, type, body) or ("attached", fields)
    if any(part[0] == "attached" for part in parts):
        return "attached message's From"
    return "differ"


_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3]")
KINDS = ("same", "same words, other order", "charset", "charset: 8-bit text read as CJK by spamnb only",
         "charset: CJK read differently", "junk line in the header block", "size cap", "attached message's From",
         "oracle error", "differ")


def evasion_table() -> None:
    """For each evasion pair: the share of the control's words each reader
    still finds in the attacked message, and the share it adds (hidden
    text read): where the email package is evaded too."""
    sys.path.insert(0, str(ROOT / "tests"))
    from evasion_cases import CASES

    def shares(read, control, attacked):
        try:
            c, a = collections.Counter(words(read(control))), collections.Counter(words(read(attacked)))
        except Exception as error:
            return f"raises {type(error).__name__}"
        total = sum(c.values()) or 1
        return f"{sum((c & a).values()) / total:.0%} kept, {sum((a - c).values()) / total:.0%} added"

    print("| case | spamnb | email (policy.default) |")
    print("|---|---|---|")
    for name, build in CASES.items():
        control, attacked = build()
        print(f"| {name} | {shares(our_texts_of, control, attacked)} "
              f"| {shares(oracle_texts, control, attacked)} |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", action="append", help="spamassassin, trec06p, ccert_zh (default: all)")
    parser.add_argument("--cpython", action="store_true", help="the email package's own test messages too")
    parser.add_argument("--only-cpython", action="store_true")
    parser.add_argument("--evasion", action="store_true", help="only the evasion pairs of tests/evasion_cases.py: words each reader keeps")
    parser.add_argument("--limit", type=int, help="messages per corpus")
    parser.add_argument("--show", type=int, default=30)
    args = parser.parse_args()
    if args.evasion:
        evasion_table()
        return
    items = []
    if not args.only_cpython:
        for name in args.corpus or ("spamassassin", "trec06p", "ccert_zh"):
            items += corpus_messages(name, args.limit)
    if args.cpython or args.only_cpython:
        items += cpython_messages()
    started = time.process_time()
    classes: dict[str, list[tuple[str, str]]] = collections.defaultdict(list)
    for origin, raw in items:
        kind, detail = compare(raw)
        classes[kind].append((origin, detail))
    print(f"messages compared: {len(items)} ({time.process_time() - started:.0f} s CPU)")
    for kind in KINDS:
        by_corpus = collections.Counter(origin.split("/")[0] + "/" + origin.split("/")[1].split("_")[0]
                                        if origin.startswith(CORPUS_NAMES) else origin.split("/")[0]
                                        for origin, _ in classes[kind])
        print(f"  {kind}: {len(classes[kind])}  {dict(sorted(by_corpus.items()))}")
    for kind in KINDS[2:]:
        for origin, detail in classes[kind][: args.show if kind in ("oracle error", "differ") else 3]:
            print(f"{kind}\t{origin}\t{detail}")


if __name__ == "__main__":
    main()
