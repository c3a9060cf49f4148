"""The Rust HTML reader (spamnb._core.html_to_text, core/src/mail/html.rs):
it reads markup as html.parser does, within the budgets the deleted
spamnb.mail.htmltext kept; hostile markup costs it no error."""

from __future__ import annotations

import random
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from spamnb import _core

ROOT = Path(__file__).resolve().parents[2]

# What the reader keeps (as htmltext keeps it): the reference below drives
# html.parser with the same rules.
INVISIBLE = {"script", "style", "title", "noscript", "template"}
BLOCK = {"address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "fieldset", "figcaption",
         "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav",
         "ol", "p", "pre", "section", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul", "option",
         "body", "html", "img", "input", "button", "select", "textarea"}
LINK_ATTRIBUTES = {"href", "src", "action", "background"}

PIECES = ["<a", "<", "a", "b", "B", " ", "\t", "\n", "\r", "\x0c", "\x0b", "\x1c", "\xa0", "\u2028", "=", "==",
          "'", '"', "/", ">", "/>", "x", "\x00", "é", "<b c", "'>'", "href", "src", "alt", "=x ", "<a href=",
          " alt=", "&", "&amp", "&#", "&#x", "1", "f", ";", "notin", "&notit;", "<!", "<!--", "--", "-->", "[",
          "]", "<![CDATA[", "<![if", "?", "<?", "<!doctype", "<script>", "</script>", "</", "</>", "<style",
          "</style >", "<img", "<p>", "</p>", "<br/>", "<title>", "</title>", "\u212a", "\u017f", "İ", "S",
          "bac\u212aground"]


def random_markup(seed: int, count: int, longest: int):
    rng = random.Random(seed)
    for _ in range(count):
        yield "".join(rng.choice(PIECES) for _ in range(rng.randint(0, longest)))


class Reference(HTMLParser):
    """html.parser itself, keeping what the reader keeps."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.pieces: list[str] = []
        self.urls: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in INVISIBLE:
            self.hidden += 1
            return
        if tag in BLOCK:
            self.pieces.append(" ")
        if len(self.urls) < 1000:
            self.urls += [value.strip() for name, value in attrs if name in LINK_ATTRIBUTES and value]
        if tag == "img":
            self.pieces += [" " + value + " " for name, value in attrs if name == "alt" and value]

    def handle_startendtag(self, tag, attrs):
        if tag not in INVISIBLE:
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag in INVISIBLE:
            self.hidden = max(0, self.hidden - 1)
        elif tag in BLOCK:
            self.pieces.append(" ")

    def handle_data(self, data):
        if not self.hidden:
            self.pieces.append(data)


def reference(markup: str) -> tuple[str, list[str]]:
    parser = Reference()
    try:
        parser.feed(markup)
        parser.close()
    except (AssertionError, ValueError):  # as the reader: what was read before is kept
        pass
    return "".join(parser.pieces), parser.urls


# html.parser's reading changed in later patch releases (comments, the end of
# a script, unclosed tags): the reader follows Python 3.11's earlier one.
@pytest.mark.skipif(not (3, 11) <= sys.version_info[:3] < (3, 11, 13), reason="html.parser of Python 3.11 before 3.11.13")
def test_markup_is_read_as_html_parser_reads_it():
    unbounded = 10 ** 9  # html.parser has no bounds
    for markup in random_markup(3, 30_000, 12):
        got = _core.html_to_text(markup, _core.HtmlBudget(tags=unbounded, scan=unbounded, attributes=unbounded))
        assert got == reference(markup), markup


# (markup, budget bounds, (text, urls), budget left as (tags, scan, attributes)):
# what the deleted Python reader (spamnb/mail/htmltext.py) gave, and the core
# matched, with each bound spent (a scan budget of 0 ends a tag at its first
# ">", a quoted one included; past the attribute budget no link is read).
BUDGETED = [
    ("<p class=a id=b>one</p><a href='http://x.example/'>two</a><img src=http://i.example/ alt=SALE><b>three</b>", {}, (' one two  SALE three', ['http://x.example/', 'http://i.example/']), (49993, 999921, 49995)),
    ("<p class=a id=b>one</p><a href='http://x.example/'>two</a><img src=http://i.example/ alt=SALE><b>three</b>", {'scan': 0}, (' one two  SALE three', ['http://x.example/', 'http://i.example/']), (49993, 0, 49995)),
    ("<p class=a id=b>one</p><a href='http://x.example/'>two</a><img src=http://i.example/ alt=SALE><b>three</b>", {'scan': 8}, (' one two  SALE three', ['http://x.example/', 'http://i.example/']), (49993, -7, 49995)),
    ("<p class=a id=b>one</p><a href='http://x.example/'>two</a><img src=http://i.example/ alt=SALE><b>three</b>", {'tags': 3}, (' one two   three ', ['http://x.example/']), (0, 999958, 49997)),
    ("<p class=a id=b>one</p><a href='http://x.example/'>two</a><img src=http://i.example/ alt=SALE><b>three</b>", {'attributes': 1}, (' one two three', []), (49993, 999921, 0)),
    ("<a href=http://a.example/ title='>'>q</a> <p>r", {}, ('q  r', ['http://a.example/']), (49997, 999963, 49998)),
    ("<a href=http://a.example/ title='>'>q</a> <p>r", {'scan': 0}, ("<a href=http://a.example/ title='>'>q  r", []), (49997, 0, 50000)),
    ("<a href=http://a.example/ title='>'>q</a> <p>r", {'scan': 8}, ('q  r', ['http://a.example/']), (49997, -27, 49998)),
    ("<a href=http://a.example/ title='>'>q</a> <p>r", {'tags': 3}, ('q  r', ['http://a.example/']), (0, 999963, 49998)),
    ("<a href=http://a.example/ title='>'>q</a> <p>r", {'attributes': 1}, ('q  r', ['http://a.example/']), (49997, 999963, 0)),
    ('<script>x<y</script>after<style>p{}</style><a href="http://s.example" >link</a>', {}, ('afterlink', ['http://s.example']), (49994, 999960, 49999)),
    ('<script>x<y</script>after<style>p{}</style><a href="http://s.example" >link</a>', {'scan': 0}, ('afterlink', ['http://s.example']), (49994, 0, 49999)),
    ('<script>x<y</script>after<style>p{}</style><a href="http://s.example" >link</a>', {'scan': 8}, ('afterlink', ['http://s.example']), (49994, -5, 49999)),
    ('<script>x<y</script>after<style>p{}</style><a href="http://s.example" >link</a>', {'tags': 3}, ('after  link ', []), (0, 999987, 50000)),
    ('<script>x<y</script>after<style>p{}</style><a href="http://s.example" >link</a>', {'attributes': 1}, ('afterlink', ['http://s.example']), (49994, 999960, 0)),
    ("<a b='c>d' href=http://h.example/>e</a><a href=http://k.example/ x", {}, ('e<a href=http://k.example/ x', ['http://h.example/']), (49997, 999940, 49998)),
    ("<a b='c>d' href=http://h.example/>e</a><a href=http://k.example/ x", {'scan': 0}, ("<a b='c>d' href=http://h.example/>e<a href=http://k.example/ x", []), (49997, 0, 50000)),
    ("<a b='c>d' href=http://h.example/>e</a><a href=http://k.example/ x", {'scan': 8}, ('e<a href=http://k.example/ x', ['http://h.example/']), (49997, -25, 49998)),
    ("<a b='c>d' href=http://h.example/>e</a><a href=http://k.example/ x", {'tags': 3}, ('e<a href=http://k.example/ x', ['http://h.example/']), (0, 999940, 49998)),
    ("<a b='c>d' href=http://h.example/>e</a><a href=http://k.example/ x", {'attributes': 1}, ('e<a href=http://k.example/ x', []), (49997, 999940, 0)),
]


@pytest.mark.parametrize("markup,bounds,expected,left", BUDGETED)
def test_each_budget_once_spent_reads_as_htmltext_read(markup, bounds, expected, left):
    budget = _core.HtmlBudget(**bounds)
    assert _core.html_to_text(markup, budget) == expected
    assert (budget.tags, budget.scan, budget.attributes) == left


def test_any_budget_reads_random_markup_without_error():
    for markup in random_markup(4, 5_000, 20):
        for bounds in ({}, {"scan": 0}, {"scan": 8}, {"tags": 3}, {"attributes": 1}):
            budget = _core.HtmlBudget(**bounds)
            text, urls = _core.html_to_text(markup, budget)
            assert isinstance(text, str) and all(isinstance(url, str) for url in urls)
            assert budget.tags >= 0 and budget.attributes >= 0
            if bounds.get("attributes") == 1:
                assert len(urls) <= 1, markup


def test_budget_defaults_and_what_is_left():
    budget = _core.HtmlBudget()
    assert (budget.tags, budget.scan, budget.attributes) == (50_000, 1_000_000, 50_000)
    markup = "<p class=a>one</p><a href=' http://x.example/ '>two</a>"
    assert _core.html_to_text(markup, budget) == (" one two", ["http://x.example/"])
    assert budget.tags == 50_000 - 4 and budget.attributes == 50_000 - 2 and budget.scan < 1_000_000
    assert _core.html_to_text(markup) == (" one two", ["http://x.example/"])


def test_character_references_as_html_unescape_reads_them():
    from html import unescape

    names = "&amp; &AMP &ampx &notit; &notin; &#65;&#x42 &#128; &#0; &#xD800; &#1; &#x110000; &bogus; & &# &#x"
    assert _core.html_to_text(names)[0] == unescape(names)
    # Python's int() refuses over 4,300 digits: reading stops there, as htmltext's does
    assert _core.html_to_text("kept<b>x</b>&#" + "9" * 5000 + ";lost")[0] == "keptx"


def test_hostile_markup_is_read_without_error():
    for markup in ("<x y" * 100_000, "<a" * 200_000, "<a b='" * 100_000, '<a href="' + "<" * 200_000,
                   "<script>" + "</scrip " * 100_000, "<![CDATA[" * 50_000, "<" * 300_000,
                   "<a" + " b" * 300_000 + ">", "&#" + "1" * 100_000, "\ud800<b>lone surrogate</b>"):
        text, urls = _core.html_to_text(markup)
        assert isinstance(text, str) and isinstance(urls, list)


def test_entity_table_is_what_python_holds():
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "html_entities_table.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
