"""How the scikit-learn peer reads mail, shared by bench/compare.py and
bench/sklearn_mnb.py: Subject + From + the text/plain (else tag-stripped
text/html) body from the email package, jieba words for Han runs and
CountVectorizer's default token pattern elsewhere.  Standard library only
(jieba when Chinese appears), so the cold-run script pays for nothing more.
"""

from __future__ import annotations

import email
import email.policy
import re

HAN_RUN = re.compile(r"([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)")
DEFAULT_TOKEN = re.compile(r"(?u)\b\w\w+\b")  # CountVectorizer's default token_pattern
TAG = re.compile(r"<[^>]*>")


def message_text(data: bytes) -> str:
    """Subject + From + the text/plain (else text/html, tags stripped) body."""
    message = email.message_from_bytes(data, policy=email.policy.default)
    return " ".join([header_text(message, "subject"), header_text(message, "from"), body_text(message)])


def header_text(message, name: str) -> str:
    try:
        return str(message.get(name, ""))
    except Exception:  # the email package raises on some malformed headers
        return ""


def body_text(message) -> str:
    try:
        part = message.get_body(preferencelist=("plain", "html"))
    except Exception:
        part = None
    if part is None:
        return ""
    payload = part.get_payload(decode=True) or b""
    charset = part.get_content_charset()
    if charset is None and re.search(rb"[\x80-\xff]", payload):
        # Most ccert_zh mail is GB2312 with no charset declared; the email
        # package would decode it as ASCII and keep none of the Chinese.
        text = payload.decode("gb18030", errors="replace")
    else:
        try:
            text = part.get_content()
        except Exception:  # unknown charset names, broken encodings
            text = payload.decode("latin-1")
    return TAG.sub(" ", text) if part.get_content_subtype() == "html" else text


def tokenize(text: str) -> list[str]:
    """jieba words for Han runs, the default token pattern elsewhere; as that
    pattern does, words of one character are dropped."""
    import jieba

    words = []
    for number, piece in enumerate(HAN_RUN.split(text)):
        if number % 2:
            words += [word for word in jieba.lcut(piece) if len(word) >= 2]
        else:
            words += DEFAULT_TOKEN.findall(piece)
    return words
