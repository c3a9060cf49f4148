//! What the reader keeps of what it reads (htmltext.py's handlers): the
//! text outside invisible elements, a space for each block-level tag, link
//! targets and an image's alt text.

use super::Reducer;
use crate::mail::html::charrefs::unescape;
use crate::mail::html::chars::py_strip;
use crate::mail::html::Stop;

/// Link targets kept per HTML part: more is a hostile or generated page.
const MAX_URLS: usize = 1000;

// "head" is not here: tag soup often opens <head> and never closes it.
fn invisible(tag: &str) -> bool {
    matches!(tag, "script" | "style" | "title" | "noscript" | "template")
}

fn block(tag: &str) -> bool {
    matches!(
        tag,
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "br"
            | "dd"
            | "div"
            | "dl"
            | "dt"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "header"
            | "hr"
            | "li"
            | "main"
            | "nav"
            | "ol"
            | "p"
            | "pre"
            | "section"
            | "table"
            | "tbody"
            | "td"
            | "tfoot"
            | "th"
            | "thead"
            | "tr"
            | "ul"
            | "option"
            | "body"
            | "html"
            | "img"
            | "input"
            | "button"
            | "select"
            | "textarea"
    )
}

pub(super) fn link_attribute(name: &str) -> bool {
    matches!(name, "href" | "src" | "action" | "background")
}

pub(super) enum AttributeKind {
    Link,
    Alt,
}

impl Reducer<'_> {
    /// Whether starttag(tag, ...) would read any attribute.
    pub(super) fn wants_attributes(&self, tag: &str) -> bool {
        !invisible(tag) && (self.urls.len() < MAX_URLS || tag == "img")
    }

    pub(super) fn starttag(&mut self, tag: &str, attrs: &[(AttributeKind, Option<String>)]) {
        if invisible(tag) {
            self.hidden_depth += 1;
            return;
        }
        if block(tag) {
            self.out.push(' ');
        }
        if self.urls.len() < MAX_URLS {
            for (kind, value) in attrs {
                if let (AttributeKind::Link, Some(value)) = (kind, value) {
                    if !value.is_empty() {
                        self.urls.push(py_strip(value).to_string());
                    }
                }
            }
        }
        if tag == "img" {
            // Alt text is shown when images are blocked, which is how most
            // people read mail, so it is part of the visible text.
            for (kind, value) in attrs {
                if let (AttributeKind::Alt, Some(value)) = (kind, value) {
                    if !value.is_empty() {
                        self.out.push(' ');
                        self.out.push_str(value);
                        self.out.push(' ');
                    }
                }
            }
        }
    }

    pub(super) fn startendtag(&mut self, tag: &str, attrs: &[(AttributeKind, Option<String>)]) {
        if !invisible(tag) {
            self.starttag(tag, attrs);
        }
    }

    pub(super) fn endtag(&mut self, tag: &str) {
        if invisible(tag) {
            if self.hidden_depth > 0 {
                self.hidden_depth -= 1;
            }
            return;
        }
        if block(tag) {
            self.out.push(' ');
        }
    }

    pub(super) fn data(&mut self, data: &str) {
        if self.hidden_depth == 0 {
            self.out.push_str(data);
        }
    }

    /// Text between i and j: character references decoded outside script
    /// and style (decoded, and so able to stop reading, even when hidden).
    pub(super) fn text_data(&mut self, i: usize, j: usize) -> Result<(), Stop> {
        let text = self.text;
        if self.cdata.is_none() {
            let decoded = unescape(&text[i..j])?;
            self.data(&decoded);
        } else {
            self.data(&text[i..j]);
        }
        Ok(())
    }
}
