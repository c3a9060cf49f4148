"""Address lists: an address field's raw value to (display name, address) pairs.

A port of the email package's _parseaddr.AddrlistClass, so addresses come out
as `email.utils.getaddresses` gives them (tests/mail/test_addresses.py holds
it to that oracle), without importing the email package (15 ms of a 30 ms
per-message budget, see mime.py).  Time is linear in the value
(tests/system/test_scaling.py), `limit` bounds the entries a hostile field
can make, and nothing here raises on bad input.
"""

from __future__ import annotations

import re

from .mime import quote

_SPECIALS = '()<>@,:;."[]'
_ATOM = re.compile(r'[^()<>@,:;."\[\] \t\r\n]*')
_PHRASE_ATOM = re.compile(r'[^()<>@,:;"\[\] \t\r\n]*')


def parse_addresses(value: str, limit: int | None = None) -> list[tuple[str, str]]:
    """(display name, address) pairs of an address field's raw value.

    Reads quoted names ("Smith, John" <j@x>), comments ((John) j@x, whose
    text becomes the name), <address> forms, bare addresses, groups
    (undisclosed-recipients:;) and route addresses as email.utils.getaddresses
    does; garbage gives ("", "") entries, never an exception.  With `limit`,
    at most about that many entries are read, and the text after them is not.
    """
    try:
        return _AddressParser(value).addresses(limit)
    except RecursionError:  # groups nested thousands deep
        return []


class _AddressParser:
    # A port of the email package's _parseaddr.AddrlistClass, state for state,
    # so addresses come out as before; atoms are read with a regex.

    def __init__(self, text: str) -> None:
        self.text = text
        self.limit: int | None = None  # entries read at most (a group's members included)
        self.pos = 0
        self.comments: list[str] = []

    def addresses(self, limit: int | None = None) -> list[tuple[str, str]]:
        self.limit = limit
        result: list[tuple[str, str]] = []
        while self.pos < len(self.text) and (limit is None or len(result) < limit):
            found = self.address()
            result += found if found else [("", "")]
        return result

    def skip(self) -> str:
        """Skip blanks and line ends, collecting comments; the blanks skipped."""
        text = self.text
        if self.pos >= len(text) or text[self.pos] not in " \t\r\n(":
            return ""  # most calls: nothing to skip
        blanks = []
        while self.pos < len(text):
            char = text[self.pos]
            if char in " \t\r\n":
                if char in " \t":
                    blanks.append(char)
                self.pos += 1
            elif char == "(":
                self.comments.append(self.delimited("(", ")\r", True))
            else:
                break
        return "".join(blanks)

    def address(self) -> list[tuple[str, str]]:
        text = self.text
        self.comments = []
        self.skip()
        old_pos, old_comments = self.pos, self.comments
        phrases = self.phrases()
        self.skip()
        out: list[tuple[str, str]] = []
        if self.pos >= len(text):
            if phrases:
                out = [(" ".join(self.comments), phrases[0])]
        elif text[self.pos] in ".@":
            self.pos, self.comments = old_pos, old_comments
            spec = self.addr_spec()
            out = [(" ".join(self.comments), spec)]
        elif text[self.pos] == ":":  # a group: its members, up to ";"
            self.pos += 1
            while self.pos < len(text) and (self.limit is None or len(out) < self.limit):
                self.skip()
                if self.pos < len(text) and text[self.pos] == ";":
                    self.pos += 1
                    break
                out.extend(self.address())  # not out + ...: a group of 100,000 members
        elif text[self.pos] == "<":
            route = self.route_addr()
            name = " ".join(phrases)
            out = [(name + " (" + " ".join(self.comments) + ")" if self.comments else name, route)]
        else:
            if phrases:
                out = [(" ".join(self.comments), phrases[0])]
            elif text[self.pos] in _SPECIALS:
                self.pos += 1
        self.skip()
        if self.pos < len(text) and text[self.pos] == ",":
            self.pos += 1
        return out

    def route_addr(self) -> str:
        text = self.text
        expect_route = False
        self.pos += 1
        self.skip()
        spec = ""
        while self.pos < len(text):
            if expect_route:
                self.domain()
                expect_route = False
            elif text[self.pos] == ">":
                self.pos += 1
                break
            elif text[self.pos] == "@":
                self.pos += 1
                expect_route = True
            elif text[self.pos] == ":":
                self.pos += 1
            else:
                spec = self.addr_spec()
                self.pos += 1
                break
            self.skip()
        return spec

    def addr_spec(self) -> str:
        text = self.text
        pieces: list[str] = []
        self.skip()
        while self.pos < len(text):
            keep_blanks = True
            char = text[self.pos]
            if char == ".":
                if pieces and not pieces[-1].strip():
                    pieces.pop()
                pieces.append(".")
                self.pos += 1
                keep_blanks = False
            elif char == '"':
                pieces.append('"%s"' % quote(self.delimited('"', '"\r', False)))
            elif char in _SPECIALS or char in " \t\r\n":
                if pieces and not pieces[-1].strip():
                    pieces.pop()
                break
            else:
                pieces.append(self.atom(_ATOM))
            blanks = self.skip()
            if keep_blanks and blanks:
                pieces.append(blanks)
        if self.pos >= len(text) or text[self.pos] != "@":
            return "".join(pieces)
        pieces.append("@")
        self.pos += 1
        self.skip()
        domain = self.domain()
        return "".join(pieces) + domain if domain else ""

    def domain(self) -> str:
        text = self.text
        pieces = []
        while self.pos < len(text):
            char = text[self.pos]
            if char in " \t":
                self.pos += 1
            elif char == "(":
                self.comments.append(self.delimited("(", ")\r", True))
            elif char == "[":
                pieces.append("[%s]" % self.delimited("[", "]\r", False))
            elif char == ".":
                self.pos += 1
                pieces.append(".")
            elif char == "@":
                return ""
            elif char in _SPECIALS or char in "\r\n":
                break
            else:
                pieces.append(self.atom(_ATOM))
        return "".join(pieces)

    def delimited(self, begin: str, ends: str, comments: bool) -> str:
        """A quoted string, comment or domain literal, without its delimiters.
        Comments nest (and their text is kept); a backslash quotes the next
        character."""
        text = self.text
        if text[self.pos] != begin:
            return ""
        out = []
        depth = 1
        quoted = False
        self.pos += 1
        while self.pos < len(text):
            char = text[self.pos]
            self.pos += 1
            if quoted:
                out.append(char)
                quoted = False
            elif char in ends:
                depth -= 1
                if not depth:
                    break
            elif comments and char == "(":
                depth += 1
            elif char == "\\":
                quoted = True
            else:
                out.append(char)
        return "".join(out)

    def atom(self, pattern) -> str:
        end = pattern.match(self.text, self.pos).end()
        atom = self.text[self.pos:end]
        self.pos = end
        return atom

    def phrases(self) -> list[str]:
        text = self.text
        out = []
        while self.pos < len(text):
            char = text[self.pos]
            if char in " \t\r\n":
                self.pos += 1
            elif char == '"':
                out.append(self.delimited('"', '"\r', False))
            elif char == "(":
                self.comments.append(self.delimited("(", ")\r", True))
            elif char in '()<>@,:;"[]':
                break
            else:
                out.append(self.atom(_PHRASE_ATOM))
        return out
