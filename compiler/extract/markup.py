"""Jira and Confluence wiki markup out of the way before text is read.

Jira descriptions and comments (REST v2) and legacy Confluence wiki pages carry markup:
``*bold*``, ``_italic_``, ``{{mono}}``, ``h2. Heading``, ``[text|https://…]``, ``{quote}``,
``{code}…{code}``, ``||header||`` tables, ``{color:red}…{color}`` and macros such as ``{toc}``.

``readable(body, system)`` returns text *of the same length* as the body, with markup replaced
by spaces (and Jira's heading and list marks by the markdown ones the sentence splitter knows),
so every offset found in it is an offset into the record body: a claim's quote is
``body[start:end]``, whatever markup the source wrote around it. Code and preformatted blocks
are blanked whole: they are not prose. Markdown bodies are left as they are.
"""

from __future__ import annotations

import re

_WIKI_SYSTEMS = frozenset({"jira", "confluence"})

_BLOCK = re.compile(r"\{(code|noformat)(?::[^}\n]*)?\}.*?(?:\{\1\}|\Z)", re.DOTALL | re.IGNORECASE)
_MACRO = re.compile(r"\{(?:[a-z][\w-]*)(?::[^}\n]*)?\}", re.IGNORECASE)
_HEADING = re.compile(r"^([ \t]*)h([1-6])\.(?=\s)", re.MULTILINE)
_LIST = re.compile(r"^([ \t]*)([*#-]+)(?=\s)", re.MULTILINE)
_BQ = re.compile(r"^([ \t]*)bq\.(?=\s)", re.MULTILINE)
_LINK = re.compile(r"\[([^\[\]|\n]*)\|([^\[\]\n]*)\]")
_BARE_LINK = re.compile(r"\[((?:https?|mailto|file):[^\[\]\s]*|~[^\[\]\s]+|#[^\[\]\s]+)\]")
_EMPHASIS = re.compile(r"(?<![\w*_+^~?])([*_+^~]|\?\?)(?=\S)([^\n]+?)(?<=\S)(\1)(?![\w*_+^~?])")
_MONO = re.compile(r"\{\{([^{}\n]*)\}\}")
_TABLE_ROW = re.compile(r"^[ \t]*\|\|?.*\|\|?[ \t]*$", re.MULTILINE)
_IMAGE = re.compile(r"!([^\s!|]+)(?:\|[^!\n]*)?!")


def _blank(text: str) -> str:
    """Spaces where ``text`` was, keeping its line breaks."""
    return re.sub(r"[^\n]", " ", text)


def _pad(keep: str, length: int) -> str:
    return keep + " " * (length - len(keep))


# a Markdown definition list entry: "Term\n: definition" (the term alone on its line)
_DEFINITION = re.compile(r"^([ \t]*[^\s:#|>*+-][^\n:]{0,60})\n(?=[ \t]*:[ \t]+\S)", re.MULTILINE)


def _definitions(text: str) -> str:
    """"Term\n: definition" read as "Term : definition" (the line break becomes a space)."""
    if "\n:" not in text and "\n :" not in text:
        return text
    return _DEFINITION.sub(lambda m: m[1] + " ", text)


def readable(body: str, system: str) -> str:
    """``body`` with wiki markup blanked, same length; Markdown is read as written, bar its
    definition lists, whose term and definition are read as one line."""
    if system not in _WIKI_SYSTEMS or not any(c in body for c in "*_{[|h!#+^~?-"):
        return _definitions(body)
    text = _BLOCK.sub(lambda m: _blank(m.group()), body)
    text = _MONO.sub(lambda m: "  " + m[1] + "  ", text)
    text = _MACRO.sub(lambda m: _blank(m.group()), text)
    if system != "jira":
        # Confluence bodies are converted from storage XHTML already (connectors/xhtml.py),
        # with markdown heading and list marks: only stray macros remain to blank
        return _definitions(text)
    text = _IMAGE.sub(lambda m: _blank(m.group()), text)
    # Jira's "* item", "# item", "** nested": list items for the sentence splitter ("- ")
    text = _LIST.sub(lambda m: m[1] + _pad("-", len(m[2])), text)
    text = _HEADING.sub(lambda m: m[1] + "#  ", text)  # any level: it is a heading
    text = _BQ.sub(lambda m: m[1] + "   ", text)
    text = _LINK.sub(lambda m: " " + m[1] + _blank("|" + m[2]) + " ", text)
    text = _BARE_LINK.sub(lambda m: " " + m[1] + " ", text)
    for _ in range(2):  # nested emphasis: *_bold italic_*
        text = _EMPHASIS.sub(lambda m: " " * len(m[1]) + m[2] + " " * len(m[3]), text)
    # "||Tier||Window||" header rows: pipes, single, so tables read as "| a | b |"
    text = _TABLE_ROW.sub(lambda m: m.group().replace("||", " |"), text)
    return _definitions(text)
