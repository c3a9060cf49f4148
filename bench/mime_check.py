"""Hold the MIME reader (the Rust core's) to the email-package decoder it replaced.

Decodes every message of the shared corpora and of sample_data with the
decoder of a fixed older revision (by default 0e99c8c, the last whose
spamnb/message.py read mail with the email package) and with the current
one, the core's `decode_message`, and compares what the tokenizer makes of
them, with the "content" header preset and with all headers.  When the two
decoded messages are equal field for field the tokens are too, so only
messages that decode differently are tokenized: the old one by the core's
`message_tokens(decoded, options)`, the current one by
`spamnb.text.tokens.message_tokens(raw, options)`.  The old message.py's
own imports of charsets and htmltext (deleted Python modules) are served by
the core (decode_text, html_to_text), so only its MIME reading is the old
one's; a revision whose message.py imports other spamnb modules (mime,
addresses: after the email package went) is not supported.
bench/oracle_email.py holds the reader to the email package itself
(policy.default).

    python bench/mime_check.py [--rev 0e99c8c] [--limit N] [--show 20]

Prints the count of messages compared, decoded alike, and with different
tokens (each listed with its first differing tokens), and the CPU time
(process_time) of each decoder over all messages.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from corpora import CORPORA, load_index  # noqa: E402
from spamnb import _core  # noqa: E402
from spamnb.mail.sources import read_messages  # noqa: E402
from spamnb.text.tokens import HEADER_PRESETS, TokenizerOptions, message_tokens  # noqa: E402

FIELDS = ("headers", "addresses", "texts", "urls", "attachments", "parse_failed")


EMAIL_PACKAGE_REVISION = "0e99c8c"


def message_source(rev: str) -> tuple[str, bytes]:
    """The decoder's source at `rev`: spamnb/mail/message.py since the layers
    were made packages, spamnb/message.py before."""
    for path in ("spamnb/mail/message.py", "spamnb/message.py"):
        shown = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT, capture_output=True)
        if shown.returncode == 0:
            return path, shown.stdout
    raise SystemExit(f"{rev} has no spamnb/mail/message.py nor spamnb/message.py")


def _core_shims() -> str:
    """A package standing in for the deleted spamnb/mail/{charsets,htmltext}.py,
    served by the core, for the old message.py's relative imports."""
    package = types.ModuleType("spamnb_mime_check_shims")
    package.__path__ = []
    charsets = types.ModuleType("spamnb_mime_check_shims.charsets")
    charsets.decode_text = _core.decode_text
    charsets.codec_for = _core.codec_for
    htmltext = types.ModuleType("spamnb_mime_check_shims.htmltext")
    htmltext.html_to_text = _core.html_to_text
    htmltext.Budget = _core.HtmlBudget
    for module in (package, charsets, htmltext):
        sys.modules[module.__name__] = module
    package.charsets, package.htmltext = charsets, htmltext
    return package.__name__


def decode_new(data: bytes, wanted=None) -> types.SimpleNamespace:
    """The core's decode_message, its tuple as named fields."""
    headers, addresses, texts, urls, attachments, parse_failed, cut = _core.decode_message(data, wanted)
    return types.SimpleNamespace(headers=headers, addresses=addresses, texts=texts, urls=urls,
                                 attachments=attachments, parse_failed=parse_failed, cut=cut)


def load_old(rev: str):
    path, source = message_source(rev)
    module = types.ModuleType("spamnb._message_before")
    module.__package__ = _core_shims()  # its relative imports (charsets, htmltext) come from the core
    sys.modules[module.__name__] = module  # dataclasses looks its module up
    exec(compile(source, f"{rev}:{path}", "exec"), module.__dict__)
    return module


def messages(limit: int | None):
    out = []
    for name in ("spamassassin", "ccert_zh"):
        if (CORPORA / name / "index").exists():
            out += [(str(path), path.read_bytes()) for _, path in load_index(name)]
    for folder in ("mail", "mbox", "maildir"):
        out += [(raw.origin, raw.data) for raw in read_messages(str(ROOT / "sample_data" / folder), [])]
    return out[:limit] if limit else out


def timed(decode, items, wanted):
    started = time.process_time()
    decoded = [decode(data, wanted) for _, data in items]
    return decoded, time.process_time() - started


def _plain(value):
    """A field's value with tuples as lists, to compare the old dataclass's with the core's."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def first_difference(a: list[str], b: list[str]) -> str:
    only_old = [t for t in dict.fromkeys(a) if t not in set(b)]
    only_new = [t for t in dict.fromkeys(b) if t not in set(a)]
    if not only_old and not only_new:
        return f"same tokens, other counts or order ({len(a)} vs {len(b)})"
    return f"old only {only_old[:6]!r}  new only {only_new[:6]!r}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rev", default=EMAIL_PACKAGE_REVISION,
                        help="the revision whose message.py is the oracle (default: %(default)s, "
                             "the last that read mail with the email package)")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--show", type=int, default=40)
    args = parser.parse_args()
    try:
        old = load_old(args.rev)
    except ImportError as error:
        parser.error(f"{args.rev}'s message.py imports what the core does not stand in for: {error}")
    items = messages(args.limit)
    option_sets = {"content": TokenizerOptions(headers=HEADER_PRESETS["content"]),
                   "all": TokenizerOptions(headers=HEADER_PRESETS["all"])}

    # Timing as the tokenizer calls it: only the default preset's header fields.
    wanted = option_sets["content"].wants_header
    _, old_seconds = timed(old.decode_message, items, wanted)
    _, new_seconds = timed(decode_new, items, wanted)

    before, _ = timed(old.decode_message, items, None)
    after, _ = timed(decode_new, items, None)
    alike = 0
    differing: list[tuple[str, str, str]] = []
    failed = {"old": 0, "new": 0}
    for (origin, raw), a, b in zip(items, before, after):
        failed["old"] += a.parse_failed
        failed["new"] += b.parse_failed
        changed = [f for f in FIELDS if _plain(getattr(a, f)) != _plain(getattr(b, f))]
        if not changed:
            alike += 1
            continue
        for label, options in option_sets.items():
            ta, tb = _core.message_tokens(a, options), message_tokens(raw, options)
            if ta != tb:
                differing.append((origin, label, ",".join(changed) + ": " + first_difference(ta, tb)))
    affected = sorted({origin for origin, _, _ in differing})
    print(f"messages compared: {len(items)}")
    print(f"decoded alike (every field): {alike}")
    print(f"decoded differently, same tokens: {len(items) - alike - len(affected)}")
    print(f"messages with different tokens: {len(affected)} ({100 * len(affected) / len(items):.3f} %)")
    print(f"parse_failed: old {failed['old']}, new {failed['new']}")
    print(f"decode CPU time: old {old_seconds:.2f} s, new {new_seconds:.2f} s")
    for origin, label, detail in differing[: args.show]:
        print(f"  {origin} [{label}] {detail}")


if __name__ == "__main__":
    main()
