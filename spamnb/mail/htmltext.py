"""HTML reduced to the text a reader sees, plus the link targets it hides.

Spam hides words from a token filter with markup ("fr<!-- x -->ee",
"f<b></b>ree"), so text on either side of an inline tag or a comment is
joined without a space; only block-level tags separate words.

The markup is read by a scanner of our own, not by `html.parser`: Python
3.11's parser takes time quadratic in the input on unclosed constructs
("<x y" repeated: 80,000 characters took 150 s; "<a", "</", "<?",
"<![CDATA[" and "<!x" repeated are quadratic too), and whether a given
interpreter has the fix depends on its patch level.  The scanner follows
html.parser's reading (Python 3.11, convert_charrefs=True) step for step,
with the same regular expressions, so it gives the same text and links
(`bench/token_identity.py` compares the two on the shared corpora); what
differs is how far it looks:

- every search for the end of a construct (">", "-->", "]]>", "</script>")
  remembers its answer, so a later search from a point before that answer
  gets it without scanning again, and a search that found nothing is not
  repeated from further on;
- the pattern that finds where a start tag ends may scan past the tag
  (quoted values can hold ">"), and html.parser runs it again from every
  "<" that an unclosed tag swallowed.  Its scans are added up, and once they
  pass SCAN_FACTOR times the part's length, or MAX_SCAN characters in a
  message (all parts together), each later scan stops at the next ">" (or
  "<" when no ">" follows).  Real mail never comes near: in the shared
  corpora a part's scans add up to at most 0.97 times its length, and the
  longest HTML part is 314,284 characters.  Past
  that point a start tag whose quoted value holds ">" is read as html.parser
  reads an unclosed tag (its text up to that ">"); the text is still read.
- each "<" costs a few microseconds of Python, so a message's markup is read
  so for its first MAX_TAGS "<" (all parts together; the most in one part of
  the shared corpora is 4,575).  The markup past that is not dropped: its
  tags are cut out by one regular expression (`<[^<>]*>` becomes a space),
  its character references decoded, and its text kept, links aside.
- the patterns that find where a start tag and its attributes end match
  what html.parser's do, but with possessive quantifiers wherever giving
  characters back can never let the match succeed otherwise (everything
  after them is optional), so the regular expression engine keeps no
  place to go back to per attribute: one tag of a million attributes took
  1.9 s and 500 MB in html.parser's pattern, 0.1 s and nothing now.
- attributes are read one by one (Python) only where they can be used
  (link targets, an image's alt text), and for MAX_ATTRIBUTES per message
  (the most in one message of the shared corpora is 1,633); past that a
  tag's attributes are stepped over by one match, and the tag is read as
  before, its link targets and alt text aside.
"""

from __future__ import annotations

import re
from html import unescape

# "head" is not here: tag soup often opens <head> and never closes it.
_INVISIBLE = frozenset({"script", "style", "title", "noscript", "template"})
_BLOCK = frozenset({
    "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt",
    "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4",
    "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section",
    "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul", "option", "body",
    "html", "img", "input", "button", "select", "textarea",
})
_LINK_ATTRIBUTES = frozenset({"href", "src", "action", "background"})
_READ_ATTRIBUTES = _LINK_ATTRIBUTES | {"alt"}
# Link targets kept per HTML part: more is a hostile or generated page.
_MAX_URLS = 1000
# Per message, all HTML parts together (see the module docstring): start-tag
# scans before they are bounded by the next ">", in characters (the pattern
# reads about 7 million a second), and "<" read as markup.
SCAN_FACTOR = 2
MAX_SCAN = 1_000_000
MAX_TAGS = 50_000
MAX_ATTRIBUTES = 50_000
_SIMPLE_TAG = re.compile(r"<[^<>]*>")

# html.parser's and _markupbase's patterns (Python 3.11), unchanged but for
# possessive quantifiers (`*+`, `?+`) in the two that read attributes: each
# marks a place where giving characters back cannot lead to another match,
# because what follows it is optional to the end of the pattern or cannot
# start with what it would give back.  `=+` and the blanks after it stay
# greedy: `a=="x` and `a= "x` with the quote never closed end with a bare
# value only when they give back.  tests/mail/test_message.py compares the
# matches with html.parser's own patterns.
_STARTTAGOPEN = re.compile(r"<[a-zA-Z]")
_TAGFIND = re.compile(r"([a-zA-Z][^\t\n\r\f />\x00]*)(?:\s|/(?!>))*")
_ATTRIBUTE = (r"(?<=['\"\s/])[^\s/>][^\s/=>]*+(?:\s*+=+\s*"
              r"(?:'[^']*+'|\"[^\"]*+\"|(?!['\"])[^>\s]*+))?+(?:\s|/(?!>))*+")
_ATTRFIND = re.compile(
    r"((?<=['\"\s/])[^\s/>][^\s/=>]*+)(\s*+=+\s*"
    r"('[^']*+'|\"[^\"]*+\"|(?!['\"])[^>\s]*+))?+(?:\s|/(?!>))*+")
# One attribute after another, as far as _ATTRFIND.match would step: one match.
_ATTRIBUTES = re.compile(f"(?:{_ATTRIBUTE})*+")
_LOCATE_STARTTAG_END = re.compile(r"""
  <[a-zA-Z][^\t\n\r\f />\x00]*+      # tag name
  (?:[\s/]*+                         # optional whitespace before attribute name
    (?:(?<=['"\s/])[^\s/>][^\s/=>]*+ # attribute name
      (?:\s*+=+\s*                   # value indicator
        (?:'[^']*+'                  # LITA-enclosed value
          |"[^"]*+"                  # LIT-enclosed value
          |(?!['"])[^>\s]*+          # bare value
         )
        \s*+                         # possibly followed by a space
       )?+(?:\s|/(?!>))*+
     )*+
   )?+
  \s*+                               # trailing whitespace
""", re.VERBOSE)
_ENDTAGFIND = re.compile(r"</\s*([a-zA-Z][-.a-zA-Z0-9:_]*)\s*>")
_DECLNAME = re.compile(r"[a-zA-Z][-_.a-zA-Z0-9]*\s*")
_GT = re.compile(">")
_LT = re.compile("<")
_COMMENT_CLOSE = re.compile(r"--\s*>")
_MARKED_SECTION_CLOSE = re.compile(r"]\s*]\s*>")
_MS_MARKED_SECTION_CLOSE = re.compile(r"]\s*>")
_CDATA_ELEMENTS = ("script", "style")


class Budget:
    """What reading a message's HTML parts may still cost (see the module docstring)."""

    __slots__ = ("tags", "scan", "attributes")

    def __init__(self, tags: int = MAX_TAGS, scan: int = MAX_SCAN, attributes: int = MAX_ATTRIBUTES) -> None:
        self.tags = tags
        self.scan = scan
        self.attributes = attributes


class _Finder:
    """pattern.search(text, start), remembering: a start at or after an
    earlier one and not past the match it found gets that match again, and a
    start at or after one that found nothing finds nothing, without a scan."""

    __slots__ = ("text", "search", "start", "match", "failed_from")

    def __init__(self, text: str, pattern) -> None:
        self.text, self.search = text, pattern.search
        self.start, self.match, self.failed_from = -1, None, len(text) + 1

    def __call__(self, start: int):
        match = self.match
        if match is not None and self.start <= start <= match.start():
            return match
        if start >= self.failed_from:
            return None
        match = self.search(self.text, start)
        if match is None:
            self.failed_from = start
        else:
            self.start, self.match = start, match
        return match

    def find(self, start: int) -> int:
        match = self.match
        if match is not None and self.start <= start <= match.start():
            return match.start()
        if start >= self.failed_from:
            return -1
        match = self(start)
        return -1 if match is None else match.start()


class _Reducer:
    def __init__(self, text: str, budget: Budget) -> None:
        self.text = text
        self.budget = budget
        self.scan_left = min(budget.scan, SCAN_FACTOR * len(text) + 1024)
        self.pieces: list[str] = []
        self.urls: list[str] = []
        self._hidden_depth = 0
        self._cdata: str | None = None
        self._cdata_close: _Finder | None = None
        self._gt = _Finder(text, _GT)
        self._lt = _Finder(text, _LT)
        self._comment_close = _Finder(text, _COMMENT_CLOSE)
        self._section_close = _Finder(text, _MARKED_SECTION_CLOSE)
        self._ms_section_close = _Finder(text, _MS_MARKED_SECTION_CLOSE)

    # -- what is kept ---------------------------------------------------------

    def wants_attributes(self, tag: str) -> bool:
        """Whether starttag(tag, ...) would read any attribute."""
        return tag not in _INVISIBLE and (len(self.urls) < _MAX_URLS or tag == "img")

    def starttag(self, tag, attrs):
        if tag in _INVISIBLE:
            self._hidden_depth += 1
            return
        if tag in _BLOCK:
            self.pieces.append(" ")
        if len(self.urls) < _MAX_URLS:
            for name, value in attrs:
                if name in _LINK_ATTRIBUTES and value:
                    self.urls.append(value.strip())
        if tag == "img":
            # Alt text is shown when images are blocked, which is how most
            # people read mail, so it is part of the visible text.
            for name, value in attrs:
                if name == "alt" and value:
                    self.pieces.append(" " + value + " ")

    def startendtag(self, tag, attrs):
        if tag not in _INVISIBLE:
            self.starttag(tag, attrs)

    def endtag(self, tag):
        if tag in _INVISIBLE:
            if self._hidden_depth:
                self._hidden_depth -= 1
            return
        if tag in _BLOCK:
            self.pieces.append(" ")

    def data(self, data):
        if not self._hidden_depth:
            self.pieces.append(data)

    # -- reading (html.parser's goahead with end=True) ----------------------

    def run(self) -> None:
        text = self.text
        n = len(text)
        i = 0
        find = text.find  # each search for "<" starts where the last one's text ended: linear
        while i < n:
            if self._cdata is None:
                j = find("<", i)
                if j < 0:
                    j = n
            else:
                match = self._cdata_close(i)  # type: ignore[misc]  # set together with _cdata
                if match is None:
                    return  # an unclosed script or style: the rest is its content
                j = match.start()
            if i < j:
                self.data(unescape(text[i:j]) if self._cdata is None else text[i:j])
            i = j
            if i == n:
                break
            self.budget.tags -= 1
            if self.budget.tags < 0:  # past the bound: the rest as text, tags cut out
                self.budget.tags = 0
                self.pieces.append(unescape(_SIMPLE_TAG.sub(" ", text[i:])))
                return
            if _STARTTAGOPEN.match(text, i):
                k = self.parse_starttag(i)
            elif text.startswith("</", i):
                k = self.parse_endtag(i)
            elif text.startswith("<!--", i):
                k = self.parse_comment(i)
            elif text.startswith("<?", i):
                k = self.parse_pi(i)
            elif text.startswith("<!", i):
                k = self.parse_html_declaration(i)
            elif i + 1 < n:
                self.data("<")
                k = i + 1
            else:
                break
            if k < 0:  # not closed: read as text up to the next ">" (or "<")
                k = self._gt.find(i + 1)
                if k < 0:
                    k = find("<", i + 1)
                    if k < 0:
                        k = i + 1
                else:
                    k += 1
                self.data(unescape(text[i:k]) if self._cdata is None else text[i:k])
            i = k
        if i < n and self._cdata is None:
            self.data(unescape(text[i:n]))

    def parse_html_declaration(self, i):
        text = self.text
        if text.startswith("<!--", i):
            return self.parse_comment(i)
        if text.startswith("<![", i):
            return self.parse_marked_section(i)
        if text[i:i + 9].lower() == "<!doctype":
            gtpos = self._gt.find(i + 9)
            return -1 if gtpos < 0 else gtpos + 1
        return self.parse_bogus_comment(i)

    def parse_bogus_comment(self, i):
        pos = self._gt.find(i + 2)
        return -1 if pos < 0 else pos + 1

    def parse_pi(self, i):
        pos = self._gt.find(i + 2)
        return -1 if pos < 0 else pos + 1

    def parse_comment(self, i):
        match = self._comment_close(i + 4)
        return -1 if match is None else match.end()

    def parse_marked_section(self, i):
        text = self.text
        start = i + 3
        if start == len(text):
            return -1
        name = _DECLNAME.match(text, start)
        if not name:
            raise AssertionError("expected name token")  # as _markupbase does: reading stops
        if name.end() == len(text):
            return -1
        section = name.group().strip().lower()
        if section in {"temp", "cdata", "ignore", "include", "rcdata"}:
            match = self._section_close(start)
        elif section in {"if", "else", "endif"}:
            match = self._ms_section_close(start)
        else:
            raise AssertionError("unknown status keyword in marked section")
        return -1 if match is None else match.end()

    def _locate_starttag_end(self, i):
        text = self.text
        if self.scan_left > 0:
            match = _LOCATE_STARTTAG_END.match(text, i)
            self.scan_left -= match.end() - i  # type: ignore[union-attr]  # the caller found a start tag here (as html.parser asserts)
            self.budget.scan -= match.end() - i  # type: ignore[union-attr]
            return match.end(), False  # type: ignore[union-attr]
        bound = self._gt.find(i + 1)
        bound = bound + 1 if bound >= 0 else (self._lt.find(i + 1) if self._lt.find(i + 1) >= 0 else len(text))
        match = _LOCATE_STARTTAG_END.match(text, i, bound)
        # the type: ignore below: the caller found a start tag here (as html.parser asserts)
        return match.end(), match.end() == bound and bound < len(text)  # type: ignore[union-attr]

    def check_for_whole_start_tag(self, i):
        text = self.text
        j, cut = self._locate_starttag_end(i)
        if cut:
            return -1
        following = text[j:j + 1]
        if following == ">":
            return j + 1
        if following == "/":
            if text.startswith("/>", j):
                return j + 2
            return -1
        if following == "":
            return -1
        if following in "abcdefghijklmnopqrstuvwxyz=/ABCDEFGHIJKLMNOPQRSTUVWXYZ":
            return -1
        return j if j > i else i + 1

    def parse_starttag(self, i):
        endpos = self.check_for_whole_start_tag(i)
        if endpos < 0:
            return endpos
        text = self.text
        attrs = []
        match = _TAGFIND.match(text, i + 1)
        k = match.end()  # type: ignore[union-attr]  # check_for_whole_start_tag found a tag here (as html.parser asserts)
        tag = match.group(1).lower()  # type: ignore[union-attr]
        # html.parser steps from attribute to attribute while k < endpos,
        # keeping each; only those starttag reads are kept, and read one by
        # one while the message's budget lasts.
        if self.wants_attributes(tag):
            budget = self.budget
            while k < endpos and budget.attributes > 0:
                found = _ATTRFIND.match(text, k)
                if not found:
                    break
                budget.attributes -= 1
                name = found.group(1).lower()
                if name in _READ_ATTRIBUTES:
                    rest, value = found.group(2, 3)
                    if not rest:
                        value = None
                    elif value[:1] == "'" == value[-1:] or value[:1] == '"' == value[-1:]:  # type: ignore[index]  # with `=`, a value
                        value = value[1:-1]  # type: ignore[index]
                    if value:
                        value = unescape(value)
                    attrs.append((name, value))
                k = found.end()
        if k < endpos:
            k = self._attributes_end(k, endpos)
        end = text[k:endpos].strip()
        if end not in (">", "/>"):
            self.data(text[i:endpos])
            return endpos
        if end.endswith("/>"):
            self.startendtag(tag, attrs)
        else:
            self.starttag(tag, attrs)
            if tag in _CDATA_ELEMENTS:
                self._cdata = tag
                self._cdata_close = _Finder(text, re.compile(r"</\s*%s\s*>" % tag, re.I))
        return endpos

    def _attributes_end(self, k: int, endpos: int) -> int:
        """Where html.parser's step from attribute to attribute, from k, stops:
        at the first attribute's end at or past endpos, or where none follows.
        One match finds where they stop following one another; only when that
        is past endpos (a tag cut at the first ">" once the scan budget is
        spent) are they stepped one by one."""
        text = self.text
        after = _ATTRIBUTES.match(text, k).end()  # type: ignore[union-attr]  # matches empty
        if after <= endpos:
            return after
        while k < endpos:
            found = _ATTRFIND.match(text, k)
            if not found:
                break
            k = found.end()
        return k

    def parse_endtag(self, i):
        text = self.text
        gt = self._gt(i + 1)
        if gt is None:
            return -1
        gtpos = gt.end()
        match = _ENDTAGFIND.match(text, i)
        if not match:
            if self._cdata is not None:
                self.data(text[i:gtpos])
                return gtpos
            name = _TAGFIND.match(text, i + 2)
            if not name:
                if text[i:i + 3] == "</>":
                    return i + 3
                return self.parse_bogus_comment(i)
            gtpos = self._gt.find(name.end())
            self.endtag(name.group(1).lower())
            return gtpos + 1
        element = match.group(1).lower()
        if self._cdata is not None and element != self._cdata:
            self.data(text[i:gtpos])
            return gtpos
        self.endtag(element)
        self._cdata = self._cdata_close = None
        return gtpos


def html_to_text(markup: str, budget: Budget | None = None) -> tuple[str, list[str]]:
    """Return (visible text, link targets) of an HTML document or fragment.
    `budget` (a fresh Budget when not given) is what reading may cost, and
    is what is left of it afterwards: one Budget serves a message's parts."""
    reducer = _Reducer(markup, Budget() if budget is None else budget)
    try:
        reducer.run()
    except (AssertionError, ValueError, RecursionError):
        # html.parser raises on a few malformed declarations (and unescape on
        # a decimal reference of over 4,300 digits); what was read before
        # that point is kept.
        pass
    return "".join(reducer.pieces), reducer.urls
