"""Does the Rust core read mail as spamnb/mail/{mime,addresses,message,digest}.py do?

Over every message of the shared corpora (or the paths given), compares the
Python and the Rust (spamnb._core) function by function: mime.parse (the
top-level fields and every part and attached header block in order), and for
every part its content type, charset, file name, parameters (Content-Type and
Content-Disposition), params_cut and transfer_decode; parse_addresses of every
top-level address field; message_digest; and, once the charset and HTML
stages are in the core (they are stubs in a branch of their own), decode_header_value of every
top-level field and decode_message whole.  Then `--fuzz N` runs N random
messages and bodies built from hostile pieces through the same comparisons.

Prints the count compared, the count identical, and the differences grouped
by kind with one example each (the message's path, never its text).

    PYTHONPATH=. python bench/core_mime_identity.py            # the three corpora
    PYTHONPATH=. python bench/core_mime_identity.py --fuzz 20000
    PYTHONPATH=. python bench/core_mime_identity.py PATH...
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter

from spamnb import _core
from spamnb.mail import addresses, digest, message, mime
from spamnb.mail.sources import read_messages

CORPORA = ["/work/shared/corpora/spamassassin", "/work/shared/corpora/trec06p", "/work/shared/corpora/ccert_zh"]


def py_parse(raw: bytes):
    fields, parts = mime.parse(raw, message.MAX_PARTS, message.MAX_DEPTH)
    out = []
    for part in parts:
        if isinstance(part, mime.AttachedHeaders):
            out.append(("attached", part.fields))
        else:
            out.append(("part", part.fields, part.content_type, part.body))
    return fields, out


def stage_available(call) -> bool:
    """Whether a stage the Rust decoder calls is implemented in this build."""
    try:
        call()
        return True
    except BaseException as error:  # pyo3's PanicException derives from BaseException
        if "not implemented" in str(error) or type(error).__name__ == "PanicException":
            return False
        raise


class Tally:
    def __init__(self) -> None:
        self.compared = Counter()
        self.identical = Counter()
        self.examples: dict[str, str] = {}
        self.kinds = Counter()

    def check(self, what: str, ours, theirs, where: str, detail=None) -> bool:
        self.compared[what] += 1
        if ours == theirs:
            self.identical[what] += 1
            return True
        kind = what if detail is None else f"{what}: {detail(ours, theirs)}"
        self.kinds[kind] += 1
        if kind not in self.examples:
            self.examples[kind] = f"{where}\n      python {short(theirs)}\n      rust   {short(ours)}"
        return False

    def report(self) -> None:
        for what in sorted(self.compared):
            print(f"{what:28} compared {self.compared[what]:>9,}  identical {self.identical[what]:>9,}")
        if not self.kinds:
            print("no differences")
        for kind, count in self.kinds.most_common():
            print(f"\n{count:>7,}  {kind}\n    e.g. {self.examples[kind]}")


def short(value, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


def compare_message(raw: bytes, where: str, tally: Tally, decoding: bool, full: bool) -> None:
    py_fields, py_parts = py_parse(raw)
    rs_fields, rs_parts = _core.parse(raw, message.MAX_PARTS, message.MAX_DEPTH)
    rs_parts = [tuple(p) for p in rs_parts]
    tally.check("parse fields", rs_fields, py_fields, where)
    same = tally.check("parse parts", rs_parts, py_parts, where,
                       lambda a, b: f"{len(a)} vs {len(b)} entities" if len(a) != len(b) else "same count")
    entities = py_parts if not same else rs_parts
    for entity in entities:
        fields = entity[1]
        for name in ("content-type", "content-disposition"):
            value = mime.field(fields, name)
            tally.check("field", _core.field(fields, name), value, where)
            tally.check("params", _core.params(value), mime.params(value), where)
            tally.check("params_cut", _core.params_cut(value), mime.params_cut(value), where)
        tally.check("content_type", _core.content_type(fields), mime.content_type(fields), where)
        tally.check("charset", _core.charset(fields), mime.charset(fields), where)
        tally.check("filename", _core.filename(fields), mime.filename(fields), where)
        if entity[0] == "part" and full:
            body = entity[3]
            tally.check("transfer_decode", _core.transfer_decode(body, fields), mime.transfer_decode(body, fields),
                        where, lambda a, b: f"{mime.transfer_encoding(fields) or 'none'}")
    for name, value in py_fields:
        if name in message.ADDRESS_FIELDS:
            text = value.decode("ascii", "surrogateescape")
            tally.check("parse_addresses", _core.parse_addresses(text, message.MAX_ADDRESSES + 1),
                        addresses.parse_addresses(text, message.MAX_ADDRESSES + 1), where)
        if decoding:
            tally.check("decode_header_value", _core.decode_header_value(value), message.decode_header_value(value),
                        where)
            if name in message.ADDRESS_FIELDS:
                tally.check("decode_addresses", _core.decode_addresses(value, message.MAX_ADDRESSES + 1),
                            message.decode_addresses(value, message.MAX_ADDRESSES + 1), where)
    tally.check("message_digest", _core.message_digest(raw), digest.message_digest(raw), where)
    if decoding:
        ours = _core.decode_message(raw)
        theirs = message.decode_message(raw)
        for index, name in enumerate(message.DecodedMessage.__slots__):
            tally.check(f"decode_message.{name}", ours[index], getattr(theirs, name), where)


# Pieces of hostile and odd mail, joined at random by --fuzz.
PIECES = [b"\n", b"\r\n", b"\r", b"\n\n", b" ", b"\t", b"From x\n", b"Subject: s\n", b"Subject :x\n", b": x\n",
          b" cont\n", b"junk line\n", b"<p>\n", b"--b\n", b"--b--\n", b"--b x\n", b"--bb\n", b"--b\r\n",
          b"Content-Type: multipart/mixed; boundary=b\n", b"Content-Type: multipart/alternative; boundary=\"b\"\n",
          b"Content-Type: message/rfc822\n", b"Content-Type: message/delivery-status\n",
          b"Content-Type: multipart/digest; boundary=b\n", b"Content-Type: text/html; charset=utf-8\n",
          b"Content-Type: text/plain; name*0*=utf-8''%E5%8F; name*1*=%91.doc\n", b"Content-Type: garbage\n",
          b"Content-Disposition: attachment; filename=\"a;b.pdf\"\n", b"Content-Type: text/plain; boundary*=idna''x\n",
          b"Content-Transfer-Encoding: base64\n", b"Content-Transfer-Encoding: quoted-printable\n",
          b"Content-Transfer-Encoding: x-uuencode\n", b"aGVsbG8=", b"aGk", b"=\n", b"=41", b"=4", b"==", b"=\r",
          b"begin 644 a\n", b"#:&D*\n", b"`\n", b"end\n", b"\xe4\xbd\xa0", b"\xff", b"\x00", b"x", b"To: a@b, \"c\" <d@e>\n",
          b"Cc: g: a@b, c@d;\n", b"From: (com) x@y (n)\n", b"=?utf-8?B?5L2g?=", b"=?gb2312?Q?=C4=E3?= ", b";", b"\"",
          b"Content-Type: text/plain; charset*=''UTF-8\n", b"X-Spam-Flag: YES\n"]


def fuzz(count: int, tally: Tally, decoding: bool) -> None:
    rng = random.Random(7)
    for number in range(count):
        raw = b"".join(rng.choice(PIECES) for _ in range(rng.randint(0, 40)))
        compare_message(raw, f"fuzz #{number}: {raw!r}"[:400], tally, decoding, True)
        for encoding in (b"base64", b"quoted-printable", b"x-uuencode"):
            fields = [("content-transfer-encoding", encoding)]
            body = b"".join(rng.choice(PIECES[-30:] + [b"QUJD", b"YQ==", b"!", b"M", b"=", b"a"])
                            for _ in range(rng.randint(0, 20)))
            tally.check("transfer_decode (fuzz)", _core.transfer_decode(body, fields), mime.transfer_decode(body, fields),
                        f"{encoding.decode()} {body!r}", lambda a, b, e=encoding: e.decode())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=None)
    parser.add_argument("--fuzz", type=int, default=0, help="random messages to compare instead of the corpora")
    parser.add_argument("--no-bodies", action="store_true", help="skip transfer_decode of corpus parts")
    args = parser.parse_args()
    decoding = stage_available(lambda: _core.decode_header_value(b"=?utf-8?q?x?=")) and \
        stage_available(lambda: _core.decode_message(b"Content-Type: text/html\n\n<p>x</p>"))
    if not decoding:
        print("charsets/html not in this core build: decode_header_value, decode_addresses and decode_message "
              "are not compared (they run once those stages land)\n")
    tally = Tally()
    started = time.monotonic()
    if args.fuzz:
        fuzz(args.fuzz, tally, decoding)
    else:
        messages = 0
        for path in args.paths or CORPORA:
            skipped: list = []
            for item in read_messages(path, skipped):
                messages += 1
                compare_message(item.data, item.origin if hasattr(item, "origin") else path, tally, decoding,
                                not args.no_bodies)
        print(f"{messages:,} messages from {', '.join(args.paths or CORPORA)}")
    print(f"{time.monotonic() - started:.0f} s\n")
    tally.report()


if __name__ == "__main__":
    sys.exit(main())
