"""How undeclared or Latin-labelled 8-bit text in the shared corpora gets decoded.

Counts, per corpus and class, the text parts and header values whose bytes
are not ASCII and whose charset label is missing or one of the "somebody's
default" Latin labels, and which decoder the core's charset sniffing
(core/src/mail/charsets.rs, `spamnb._core._charsets_sniff`) picks for them.
A Latin-1 message read as GB18030 (or the reverse) shows up as a surprising
row; the examples printed let a person check.

    python bench/charset_census.py [../shared/corpora]
"""

import collections
import email
import email.policy
import sys
from pathlib import Path

from spamnb._core import _charsets_sniff as _sniff
from spamnb._core import codec_for

# Labels that say nothing about the bytes (none, or "somebody's default"
# Latin, which codec_for maps to cp1252): the core sniffs these.
_WEAK = frozenset({"cp1252", ""})


def census(root: Path):
    for corpus in sorted(p for p in root.iterdir() if (p / "index").exists()):
        choices = collections.Counter()
        examples = {}
        for line in (corpus / "index").read_text().splitlines():
            label, relative = line.split("\t")
            raw = (corpus / relative).read_bytes()
            message = email.message_from_bytes(raw, policy=email.policy.compat32)
            pieces = [("header", None, v.encode("ascii", "surrogateescape"))
                      for _, v in message._headers if not v.isascii()]
            for part in message.walk():
                if part.get_content_maintype() in ("text", "multipart") and not part.is_multipart():
                    pieces.append(("body", part.get_content_charset(), part.get_payload(decode=True) or b""))
            for where, declared, data in pieces:
                if data.isascii() or codec_for(declared) not in _WEAK:
                    continue
                sniffed = _sniff(data)
                choice, text = sniffed if sniffed is not None else ("cp1252", None)
                key = (label, where, declared or "-", choice)
                choices[key] += 1
                if key not in examples:
                    sample = (text or data.decode("cp1252", "replace"))
                    examples[key] = (relative, " ".join(sample.split())[:60])
        print(f"== {corpus.name}")
        for key, n in sorted(choices.items()):
            print(f"{n:6d}  {' '.join(key):55s} e.g. {examples[key][0]}: {examples[key][1]}")


if __name__ == "__main__":
    if any(arg in ("-h", "--help") for arg in sys.argv[1:]):
        sys.exit(print(__doc__))
    census(Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "shared" / "corpora"))
