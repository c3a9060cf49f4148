"""Evasion pairs: a control message and the same message attacked
by one malformation, each built here in code from the invented texts below
(no copied mail).  A mail client shows the attacked message as it shows the
control, so spamnb must score the two alike: tests/mail/test_evasion.py holds
each attacked log-odds within TOLERANCE of its control's, and
`python bench/evasion_table.py` prints the measured pairs for RELIABILITY.md.

Each case is a function returning (control, attacked) as bytes.
"""

from __future__ import annotations

import base64

# The invented spam the controls carry: words the sample_data model counts as
# spam, in English and Chinese, in a base64 HTML part.
SPAM_HTML = (
    "<html><body><p>Dear customer,</p>\n"
    "<p>Your bank account qualifies for debt relief today. Pay only $1 per pill, full refund,\n"
    "and avoid every fee: click <a href=\"http://offers.example/claim\">here</a> to claim it today.</p>\n"
    "<p>尊敬的客户：本公司为企业会员提供税务优惠，点击领取，长期有效，获得投资回报。</p>\n"
    "</body></html>\n")
SPAM_TEXT = (
    "Dear customer,\n\nYour bank account qualifies for debt relief today. Pay only $1 per pill, full refund,\n"
    "and avoid every fee: visit http://offers.example/claim to claim it today.\n"
    "尊敬的客户：本公司为企业会员提供税务优惠，点击领取，长期有效，获得投资回报。\n")
# Text a spammer hides where no client shows it (an epilogue, a preamble):
# words the sample model counts as ham.
HAM_TEXT = ("Notes from the february meeting: the trail path data is below, see you on the 15th and the 11th.\n"
            "大家好，会议的数据如下，电子版见附件。\n") * 3

HEAD = [
    "From: Pat Lee <pat@mail.example>",
    "To: alex@mail.example",
    "Subject: your account",
    "Date: Mon, 3 Mar 2025 10:00:00 +0000",
    "Message-ID: <a1b2c3@mail.example>",
    "MIME-Version: 1.0",
]


def b64(text: str, charset: str = "utf-8", line: int = 57) -> bytes:
    data = text.encode(charset)
    return b"".join(base64.b64encode(data[i:i + line]) + b"\n" for i in range(0, len(data), line))


def message(head: list[str], body: bytes) -> bytes:
    return ("\n".join(head) + "\n\n").encode("utf-8", "surrogateescape") + body


def html_part_head(ctype: str = 'Content-Type: text/html; charset="utf-8"',
                   cte: str = "Content-Transfer-Encoding: base64") -> list[str]:
    return [ctype, cte]


def single(ctype: str = 'Content-Type: text/html; charset="utf-8"', cte: str = "Content-Transfer-Encoding: base64",
           head: list[str] | None = None, body: bytes | None = None) -> bytes:
    """The spam as one base64 HTML part."""
    return message((HEAD if head is None else head) + [ctype, cte], b64(SPAM_HTML) if body is None else body)


def alternative(boundary: str = "b1", param: str | None = None, open_line: str | None = None,
                close_line: str | None = None, extra: bytes = b"", head: list[str] | None = None) -> bytes:
    """The spam as multipart/alternative: a text/plain part, a base64 HTML part."""
    param = f'boundary="{boundary}"' if param is None else param
    open_line = f"--{boundary}" if open_line is None else open_line
    close_line = f"--{boundary}--" if close_line is None else close_line
    body = (f"This is a multi-part message in MIME format.\n\n{open_line}\n"
            "Content-Type: text/plain; charset=\"utf-8\"\nContent-Transfer-Encoding: 8bit\n\n").encode() \
        + SPAM_TEXT.encode() + f"\n{open_line}\nContent-Type: text/html; charset=\"utf-8\"\n".encode() \
        + b"Content-Transfer-Encoding: base64\n\n" + b64(SPAM_HTML) + extra + f"{close_line}\n".encode()
    return message((HEAD if head is None else head) + [f"Content-Type: multipart/alternative; {param}"], body)


def mixed_text(disposition: str = "") -> bytes:
    """The spam as the text/plain part of a multipart/mixed."""
    part = "Content-Type: text/plain; charset=\"utf-8\"\nContent-Transfer-Encoding: 8bit\n" + disposition
    body = (f"--m1\n{part}\n").encode() + SPAM_TEXT.encode() + b"\n--m1--\n"
    return message(HEAD + ['Content-Type: multipart/mixed; boundary="m1"'], body)


# --- the cases -------------------------------------------------------------

def rfc2231_section_int_rejects():
    nines = "9" * 5000
    return single(), single(ctype=f'Content-Type: text/html; charset="utf-8"; x*{nines}*=a')


def boundary_idna():
    boundary = "----=_NextPart_000_0012_01DA"
    return alternative(boundary), alternative(boundary, param=f"boundary*=idna''{boundary}")


def utf8_cut_inside_a_character():
    from spamnb._core import MAX_TEXT_CHARS

    cap = 4 * MAX_TEXT_CHARS  # the decoded bytes read of a part
    unit = SPAM_TEXT.encode("utf-8")
    body = unit * (cap // len(unit))
    control = body + b" " * (cap - len(body))  # exactly the cap, ending on a character
    attacked = control[:-1] + "发票".encode("utf-8") + unit  # the cap falls after the first byte of 发
    head = HEAD + ['Content-Type: text/plain; charset="utf-8"', "Content-Transfer-Encoding: 8bit"]
    return message(head, control), message(head, attacked)


def folded_quoted_boundary():
    return (alternative("simple boundary"),
            alternative("simple boundary", param='boundary="simple\n boundary"'))


def boundary_line_with_trailing_text():
    return alternative("b1"), alternative("b1", open_line="--b1 x", close_line="--b1-- the end")


def header_line_that_is_no_field():
    head = HEAD[:5] + ["this line is not a header field"] + HEAD[5:]
    return single(), single(head=head)


def blank_before_the_colon():
    head = [line.replace("Subject:", "Subject :") for line in HEAD]
    return single(), single(ctype='Content-Type : text/html; charset="utf-8"',
                            cte="Content-Transfer-Encoding\t: base64", head=head)


def epilogue_after_an_empty_part():
    hidden = b"\n--b1\n--b1--\n" + HAM_TEXT.encode()
    return alternative("b1"), alternative("b1", close_line="", extra=hidden)


def preamble_of_a_nested_multipart_without_parts():
    nested = ('--b1\nContent-Type: multipart/alternative; boundary="c2"\n\n' + HAM_TEXT + "--c2--\n").encode()
    return alternative("b1"), alternative("b1", extra=nested)


def preamble_of_a_nested_multipart_whose_boundary_never_occurs():
    nested = ('--b1\nContent-Type: multipart/alternative; boundary="c2"\n\n' + HAM_TEXT).encode()
    return alternative("b1"), alternative("b1", extra=nested)


def text_attachment_shown_inline():
    return mixed_text(), mixed_text('Content-Disposition: attachment; filename="offer.txt"\n')


def duplicate_content_type_after():
    return single(), single(cte="Content-Transfer-Encoding: base64\nContent-Type: text/plain; charset=us-ascii")


def garbage_content_type_before():
    return single(), single(ctype='Content-Type: garbage\nContent-Type: text/html; charset="utf-8"')


def duplicate_transfer_encoding():
    return single(), single(cte="Content-Transfer-Encoding: x-junk\nContent-Transfer-Encoding: base64\n"
                                "Content-Transfer-Encoding: 7bit")


def odd_case_and_trailing_blank():
    return single(), single(ctype='CONTENT-TYPE: TEXT/HTML; CHARSET="UTF-8"',
                            cte="content-transfer-encoding: BASE64 ")


def garbage_after_type_and_encoding():
    return single(), single(ctype='Content-Type: text/html garbage; charset="utf-8"',
                            cte="Content-Transfer-Encoding: base64 (it is)")


def missing_boundary_parameter():
    return single(), single(ctype="Content-Type: multipart/alternative")


def missing_close_delimiter():
    return alternative("b1"), alternative("b1", close_line="")


def unknown_and_alias_charsets():
    control = single(ctype="Content-Type: text/plain; charset=gb2312", body=b64(SPAM_TEXT, "gb18030"))
    attacked = single(ctype="Content-Type: text/plain; charset=x-klingon", body=b64(SPAM_TEXT, "gb18030"))
    return control, attacked


def charset_alias():
    return single(), single(ctype="Content-Type: text/html; charset=UTF8")


def lying_charset():
    return single(), single(ctype="Content-Type: text/html; charset=us-ascii")


def nul_bytes_inside_words():
    spaced = "".join(char + "\x00" if char.isalnum() else char for char in SPAM_HTML)
    return single(), single(body=b64(spaced))


def invisible_characters_inside_words():
    spaced = "".join(char + "\u200b" if char.isalpha() and char.isascii() else char for char in SPAM_HTML)
    return single(), single(body=b64(spaced))


def encoded_words_inside_words():
    # A body of a few spam words: with the subject's words the model knows 6
    # tokens, without them 4, too few for a verdict, so a subject read wrong
    # moves the score by its whole +3.
    body = "点击领取，长期有效。\n".encode()
    control = message(HEAD[:2] + ["Subject: account 优惠 relief today"] + HEAD[3:]
                      + ["Content-Type: text/plain; charset=utf-8"], body)
    attacked = message(HEAD[:2] + ["Subject: acc=?utf-8?q?ount?= =?utf-8?b?5LyY?=惠 re=?gb2312?b?bGllZg==?= today"]
                       + HEAD[3:] + ["Content-Type: text/plain; charset=utf-8"], body)
    return control, attacked


def message_rfc822_and_multipart_nesting():
    inner = alternative("in1").replace(b"Message-ID:", b"X-Message-ID:")  # a whole message, attached
    body = (b"--out1\nContent-Type: message/rfc822\n\n" + inner + b"\n--out1--\n")
    attacked = message(HEAD + ['Content-Type: multipart/mixed; boundary="out1"'], body)
    return alternative("in1"), attacked


def base64_padding_inside_and_missing():
    # Each line encoded alone (padding at every line end), the last padding dropped.
    data = SPAM_HTML.encode("utf-8")
    lines = [base64.b64encode(data[i:i + 50]) for i in range(0, len(data), 50)]
    lines[-1] = lines[-1].rstrip(b"=")
    return single(), single(body=b"\n".join(lines) + b"\n")


def base64_junk_and_extra_padding():
    junk = b64(SPAM_HTML).replace(b"\n", b"!\n", 3) + b"====\n"
    return single(), single(body=junk)


CASES = {
    # the issue's
    "rfc2231-section-int-rejects": rfc2231_section_int_rejects,
    "boundary-idna": boundary_idna,
    "utf8-cut-inside-a-character": utf8_cut_inside_a_character,
    "folded-quoted-boundary": folded_quoted_boundary,
    "boundary-line-with-trailing-text": boundary_line_with_trailing_text,
    "header-line-that-is-no-field": header_line_that_is_no_field,
    "blank-before-the-colon": blank_before_the_colon,
    "epilogue-after-an-empty-part": epilogue_after_an_empty_part,
    "preamble-of-a-nested-multipart-without-parts": preamble_of_a_nested_multipart_without_parts,
    "text-attachment-shown-inline": text_attachment_shown_inline,
    "preamble-of-a-nested-multipart-whose-boundary-never-occurs":
        preamble_of_a_nested_multipart_whose_boundary_never_occurs,
    # found
    "duplicate-content-type-after": duplicate_content_type_after,
    "garbage-content-type-before": garbage_content_type_before,
    "duplicate-transfer-encoding": duplicate_transfer_encoding,
    "odd-case-and-trailing-blank": odd_case_and_trailing_blank,
    "garbage-after-type-and-encoding": garbage_after_type_and_encoding,
    "missing-boundary-parameter": missing_boundary_parameter,
    "missing-close-delimiter": missing_close_delimiter,
    "unknown-charset": unknown_and_alias_charsets,
    "charset-alias": charset_alias,
    "lying-charset": lying_charset,
    "nul-bytes-inside-words": nul_bytes_inside_words,
    "invisible-characters-inside-words": invisible_characters_inside_words,
    "encoded-words-inside-words": encoded_words_inside_words,
    "message-rfc822-and-multipart-nesting": message_rfc822_and_multipart_nesting,
    "base64-padding-inside-and-missing": base64_padding_inside_and_missing,
    "base64-junk-and-extra-padding": base64_junk_and_extra_padding,
}
