"""HTML reduced to the text a reader sees, plus the link targets it hides.

Spam hides words from a token filter with markup ("fr<!-- x -->ee",
"f<b></b>ree"), so text on either side of an inline tag or a comment is
joined without a space; only block-level tags separate words.
"""

from __future__ import annotations

from html.parser import HTMLParser

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
# Link targets kept per HTML part: more is a hostile or generated page.
_MAX_URLS = 1000


class _Reducer(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.pieces: list[str] = []
        self.urls: list[str] = []
        self._hidden_depth = 0

    def handle_starttag(self, tag, attrs):
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

    def handle_startendtag(self, tag, attrs):
        if tag not in _INVISIBLE:
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag in _INVISIBLE:
            if self._hidden_depth:
                self._hidden_depth -= 1
            return
        if tag in _BLOCK:
            self.pieces.append(" ")

    def handle_data(self, data):
        if not self._hidden_depth:
            self.pieces.append(data)


def html_to_text(markup: str) -> tuple[str, list[str]]:
    """Return (visible text, link targets) of an HTML document or fragment."""
    reducer = _Reducer()
    try:
        reducer.feed(markup)
        reducer.close()
    except (AssertionError, ValueError, RecursionError):
        # html.parser raises on a few malformed declarations; what was read
        # before that point is kept.
        pass
    return "".join(reducer.pieces), reducer.urls
