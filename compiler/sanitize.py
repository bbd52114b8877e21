"""Source text made inert: the ONE rule for every place that renders text from a source into
the wiki (pages, their titles and tables, ``index.md``, ``log.md``, ``SCHEMA.md``).

Source text is data. Rendered as Markdown (and so as the HTML a Markdown viewer makes of it, or
in Obsidian), it must show as the characters it holds and never become markup of its own:

- HTML: ``<`` ``>`` ``&`` become entities, so ``<script>``, ``<iframe>``, ``<img onerror>``,
  HTML comments and autolinks show as text; a Confluence ``&lt;script&gt;`` (decoded by the
  connector into ``<script>``) shows as ``<script>``, as Confluence showed it;
- Markdown and Obsidian: ``[`` ``]`` are escaped, so no link, image (remote or not), wikilink
  or embed can come from a source; so are ``|`` (tables), the backslash (escapes of its own),
  the backtick (code spans) and ``$`` (Obsidian renders ``$…$`` as math, which has commands of
  its own); whitespace runs (newlines included) become one space, so no block markup starts
  mid-text.

Front matter is YAML data: its values keep their characters, except ``<`` and ``>``
(:func:`inert_value`). Links the compiler itself renders go through :func:`link_target`: only
``http``, ``https`` and ``mailto`` targets (a source's URL), wiki links only to page ids
(``type/slug``), Markdown links only to page files (:func:`page_href`, ``index.md``), and
footnote labels (OKF source ids) only from :func:`footnote_label`, which keeps ``[a-z0-9-]``. Folio renders no image from a source, so no remote image is ever fetched by a
viewer, and there is no setting to allow one: nothing would use it.

The renderer (``compiler/render.py``: ``escape``, ``linked_value``, ``wikilink``, the front
matter, the sources table, ``index.md`` lines and ``log.md`` headings) and
``compiler/schema_page.py`` call these functions and nothing else on source text.
"""

from __future__ import annotations

import hashlib
import re
from urllib.parse import quote, urlsplit

_SPACES = re.compile(r"\s+")
# one scan finds whether any character needs escaping: most values hold none
_ACTIVE = re.compile(r"[\\|\[\]<>&`$]")
_ESCAPED = {"\\": "\\\\", "|": "\\|", "[": "\\[", "]": "\\]", "<": "&lt;", ">": "&gt;",
            "&": "&amp;", "`": "\\`", "$": "\\$"}
_PAGE_ID = re.compile(r"[a-z0-9-]{1,32}/[a-z0-9-]{1,100}")
_SCHEMES = ("http", "https", "mailto")
# characters that could end or break a Markdown link destination, or are not URL text at all
_URL_SAFE = "/:?#@!$&'*+,;=%-._~"


def inert_inline(text: str) -> str:
    """Source text as inert one-line Markdown, edge spaces kept (fragments join up)."""
    # the usual value has no whitespace but single spaces (str.isprintable is False for every
    # other character \s matches): the substitution is skipped, it is most of the cost
    if not text.isprintable() or "  " in text:
        text = _SPACES.sub(" ", text)
    return _ACTIVE.sub(lambda m: _ESCAPED[m.group()], text) if _ACTIVE.search(text) else text


def inert(text: str) -> str:
    """Source text as inert one-line Markdown."""
    return inert_inline(text).strip()


def inert_value(text: str) -> str:
    """Source text as a front matter value: the characters kept (it is data, read by YAML
    parsers), except ``<`` and ``>``, which become entities, so that a site generator that
    prints a title into HTML unescaped (Jekyll's Liquid does) prints text, not a tag."""
    if "<" in text or ">" in text:
        return text.replace("<", "&lt;").replace(">", "&gt;")
    return text


def link_target(url: str | None) -> str | None:
    """``url`` if it may be a link target (``http``/``https`` with a host, ``mailto``),
    percent-encoded so it cannot end the link early; else None (render the text alone)."""
    if not url:
        return None
    url = url.strip()
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _SCHEMES or (scheme != "mailto" and not parts.netloc):
        return None
    # control characters, spaces, quotes, brackets and parentheses are encoded: the target
    # stays one token of Markdown whatever the source put in it
    return quote(url, safe=_URL_SAFE)


def inert_code(text: str) -> str:
    """Source text (a record key) as a one-line code span, which shows its characters as they
    are; text holding a backtick (it would end the span, and a backslash does not escape it
    there) or a table bar is rendered as escaped text instead."""
    text = _SPACES.sub(" ", text).strip()
    if "`" in text or "|" in text or not text:
        return inert(text)
    return f"`{text}`"


def page_href(page_id: str) -> str | None:
    """The relative Markdown link target of a page file (``type/slug.md``), or None when
    ``page_id`` is not a page id."""
    return f"{page_id}.md" if is_page_id(page_id) else None


_LABEL_JUNK = re.compile(r"[^a-z0-9]+")
_LABEL_MAX = 64


def footnote_label(key: str) -> str:
    """A footnote label made from a record key: lowercase ``[a-z0-9-]`` only, so it can never
    close the footnote (``]``), start markup or hold a space; a long key keeps its tail (the
    record's own id) and a hash of the whole key, so labels stay distinct and stable."""
    label = _LABEL_JUNK.sub("-", key.lower()).strip("-") or "source"
    if len(label) > _LABEL_MAX:
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        label = label[-(_LABEL_MAX - 9):].lstrip("-") + "-" + digest
    return label


def is_page_id(target: str) -> bool:
    """Whether ``target`` is a page id a wikilink may point to."""
    return _PAGE_ID.fullmatch(target) is not None


__all__ = ["footnote_label", "inert", "inert_code", "inert_inline", "inert_value", "is_page_id", "link_target",
           "page_href"]
