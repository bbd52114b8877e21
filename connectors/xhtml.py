"""Confluence storage format (XHTML with ``ac:``/``ri:`` macros) to plain text.

The text is what claims quote and index spans into, so the conversion is deterministic and
line-oriented: one block per line, list items as ``- item``, definition list entries as
``term: definition``, two-cell table rows as ``key: value`` (the usual shape of a Confluence
"page properties" table). A table whose first row is all header cells is written row by row as
``Header: cell; Header: cell.`` (the first pair is the row's label; a label under an empty
header cell stands alone), which reads as text and which the extractor reads cell by cell
(``compiler/tables.py``).

What Confluence shows in place of markup is kept as text: a status lozenge's title
(``AGREED``), a Jira issue macro's key, a user mention as the user's name (the link's own body,
else the name the export gives for that user, else ``@<account id>`` so the fact that someone
was named survives), and a task list item as ``- [ ] task`` / ``- [x] task`` by its status.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from html.parser import HTMLParser

_BLOCK = frozenset(
    {"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "li", "ul", "ol", "dl", "dt", "dd",
     "tr", "table", "thead", "tbody", "blockquote", "pre", "hr", "section", "article",
     "ac:rich-text-body", "ac:plain-text-body", "ac:layout", "ac:layout-section",
     "ac:layout-cell", "ac:task", "ac:task-list", "ac:structured-macro"}
)  # fmt: skip
# Macro configuration and task bookkeeping are not prose a reader would see on the page.
_DROP = frozenset(
    {"ac:parameter", "ac:task-id", "ac:task-uuid", "ac:task-status", "ac:placeholder",
     "script", "style", "ri:url"}
)  # fmt: skip
# inline macros Confluence renders as one of their parameters: the lozenge's title, the key of
# the Jira issue it links (they stay in the line they stand in)
_INLINE_MACROS = {"status": "title", "jira": "key"}
# how a <ri:user> names the user: Cloud account id, Server/Data Center user key, old username
_USER_KEYS = ("ri:account-id", "ri:userkey", "ri:username")
_TASK_MARKS = {"complete": "[x] ", "incomplete": "[ ] "}
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_VERBATIM = frozenset({"pre", "ac:plain-text-body"})
_LINK_TARGETS = ("ri:page", "ri:blog-post")
_CELLS = ("td", "th")
_SPACE = re.compile(r"\s+")
_TAG = re.compile(r"<[^>]*>")


@dataclass(frozen=True)
class StorageText:
    text: str
    page_links: tuple[str, ...] = ()


@dataclass
class _Link:
    target: str | None = None
    fallback: str | None = None
    parts: list[str] = field(default_factory=list)


class _Converter(HTMLParser):
    def __init__(self, users: Mapping[str, str] | None = None) -> None:
        super().__init__(convert_charrefs=True)
        self.users = users or {}
        self._macros: list[str] = []  # names of the open structured macros
        self._param: list[str] | None = None  # text of an inline macro's shown parameter
        self._task_status: list[str] | None = None  # text of an open <ac:task-status>
        self._task: list[str] = []  # each open task's status, once read
        if hasattr(self, "support_cdata"):  # Python >= 3.14 only reports CDATA when asked
            self.support_cdata(True)
        self.lines: list[str] = []
        self.links: list[str] = []
        self._line: list[str] = []
        self._prefix = ""
        self._drop = 0
        self._verbatim = 0
        self._link: list[_Link] = []
        # each open row remembers how many cells were open around it (tables nest in cells)
        # and whether each of its cells was a header cell
        self._rows: list[tuple[list[str], int, list[bool]]] = []
        self._cells: list[list[str]] = []
        self._cell_is_th: list[bool] = []
        self._tables: list[int] = []  # rows open when each table started
        self._headers: list[list[str] | None] = []  # each open table's header row, once seen
        self._first_row: list[bool] = []  # each open table: no row closed yet
        self._term: list[str] | None = None  # a <dt>'s text, until its <dd>

    # -- output sinks: the innermost open link, else table cell, else the current line --
    def _emit(self, text: str) -> None:
        if self._link:
            self._link[-1].parts.append(text)
        elif self._term is not None and not self._cells:
            self._term.append(text)
        elif self._cells:
            self._cells[-1].append(text)
        else:
            if not self._line and not text.strip():
                return
            if not self._line and self._prefix:
                self._line.append(self._prefix)
                self._prefix = ""
            self._line.append(text)

    def _break(self) -> None:
        if self._link or self._cells:
            self._emit(" ")  # blocks inside a cell or link body stay on the row's line
            return
        if "".join(self._line).strip():
            self.lines.append("".join(self._line))
        self._line = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if not self._drop and tag == "ac:parameter" and self._macros \
                and _INLINE_MACROS.get(self._macros[-1]) == a.get("ac:name"):
            self._param = []  # the one parameter the macro shows: read it, drop the others
        elif not self._drop and tag == "ac:task-status":
            self._task_status = []
        if tag in _DROP:
            self._drop += 1
            return
        if self._drop:
            return
        if tag in _VERBATIM:
            self._verbatim += 1
        if tag == "ac:structured-macro":
            self._macros.append(a.get("ac:name", ""))
            if self._macros[-1] in _INLINE_MACROS:
                return  # inline: no line break around it
        if tag == "ac:task":
            self._task.append("")
        if tag == "ac:link":
            self._link.append(_Link())
        elif tag in _LINK_TARGETS and self._link:
            self._link[-1].target = a.get("ri:content-title") or None
        elif tag == "ri:attachment" and self._link:
            self._link[-1].fallback = a.get("ri:filename") or None
        elif tag == "ri:user" and self._link:
            self._link[-1].fallback = self._user(a)
        elif tag == "ac:task-body":
            self._break()
            mark = _TASK_MARKS.get(self._task[-1] if self._task else "", "")
            if self._cells or self._link:
                self._emit(mark)
            else:
                self._prefix = "- " + mark
        elif tag == "time" and a.get("datetime"):
            self._emit(a["datetime"])
        elif tag == "table":
            self._break()
            self._tables.append(len(self._rows))
            self._headers.append(None)
            self._first_row.append(True)
        elif tag == "tr":
            self._break()
            self._rows.append(([], len(self._cells), []))
        elif tag in _CELLS and self._rows:
            self._close_cells()  # an unclosed <td> ends where the next one starts
            self._cells.append([])
            self._cell_is_th.append(tag == "th")
        elif tag == "dt" and not self._cells and not self._link:
            self._break()
            self._term = []
        elif tag == "dd" and not self._cells and not self._link:
            self._close_term()
            self._break()
        elif tag == "br":
            self._break()
        elif tag == "li":
            self._break()
            if not self._cells and not self._link:
                self._prefix = "- "
        elif tag in _HEADINGS:
            self._break()
            if not self._cells and not self._link:
                # markdown heading marks: the sentence splitter skips headings, which
                # label a section rather than state anything
                self._prefix = "#" * int(tag[1]) + " "
        elif tag in _BLOCK:
            self._break()

    def handle_endtag(self, tag: str) -> None:
        if tag in _DROP:
            self._drop = max(0, self._drop - 1)
            if self._drop:
                return
            if tag == "ac:parameter" and self._param is not None:
                shown, self._param = _SPACE.sub(" ", "".join(self._param)).strip(), None
                if shown:
                    # a word of its own: apart from the words that touch it, not from "(" or "."
                    self._emit((" " if self._tail()[-1:].isalnum() else "") + shown)
                    self._glued = True
            elif tag == "ac:task-status" and self._task_status is not None:
                if self._task:
                    self._task[-1] = "".join(self._task_status).strip().lower()
                self._task_status = None
            return
        if self._drop:
            return
        if tag in _VERBATIM:
            self._verbatim = max(0, self._verbatim - 1)
        if tag == "ac:structured-macro" and self._macros:
            if self._macros.pop() in _INLINE_MACROS:
                return
        if tag == "ac:task" and self._task:
            self._task.pop()
        if tag == "ac:task-body":
            self._break()
            self._prefix = ""
        elif tag == "ac:link" and self._link:
            self._close_link()
        elif tag in _CELLS and self._rows and len(self._cells) > self._rows[-1][1]:
            self._close_cell()
        elif tag == "tr" and self._rows:
            self._close_row()
        elif tag == "table" and self._tables:
            while len(self._rows) > self._tables[-1]:
                self._close_row()  # rows the markup forgot to close end with their table
            self._tables.pop()
            self._headers.pop()
            self._first_row.pop()
            self._break()
        elif tag == "dt" and self._term is not None:
            term = _SPACE.sub(" ", "".join(self._term)).strip()
            self._term = None
            self._pending_term = term
        elif tag == "dd":
            self._pending_term = ""
            self._break()
        elif tag == "li":
            self._break()
            self._prefix = ""
        elif tag in _BLOCK:
            self._break()

    def handle_data(self, data: str) -> None:
        if self._drop:
            if self._drop == 1 and self._param is not None:
                self._param.append(data)
            elif self._drop == 1 and self._task_status is not None:
                self._task_status.append(data)
            return
        if self._glued and data[:1].isalnum():
            data = " " + data
        self._glued = False
        if self._verbatim:
            first, *rest = data.split("\n")
            self._emit(first)
            for line in rest:
                self._break()
                self._emit(line)
        else:
            self._emit(_SPACE.sub(" ", data))

    def unknown_decl(self, data: str) -> None:
        if data.startswith("CDATA["):
            self.handle_data(data[len("CDATA[") :])

    def handle_comment(self, data: str) -> None:
        # Python versions that do not recognise CDATA outside SVG/MathML report it as a comment.
        if data.startswith("[CDATA[") and data.endswith("]]"):
            self.handle_data(data[len("[CDATA[") : -2])

    _glued = False  # the last text emitted was an inline macro's

    def _tail(self) -> str:
        """The last text the current output sink received (see :meth:`_emit`)."""
        sink = (self._link[-1].parts if self._link else self._term
                if self._term is not None and not self._cells else self._cells[-1]
                if self._cells else self._line)
        return sink[-1] if sink else ""

    def _user(self, a: dict[str, str]) -> str | None:
        """A mentioned user as the export names them, else by their id."""
        for key in _USER_KEYS:
            if a.get(key):
                return self.users.get(a[key]) or f"@{a[key]}"
        return None

    def _close_link(self) -> None:
        link = self._link.pop()
        body = _SPACE.sub(" ", "".join(link.parts)).strip()
        text = body or link.target or link.fallback or ""
        if link.target:
            self.links.append(link.target)
        if text:
            self._emit(text)

    _pending_term = ""

    def _close_term(self) -> None:
        """A <dd> starts: its text follows its term ("term: definition")."""
        if self._term is not None:  # <dd> without </dt>
            self._pending_term = _SPACE.sub(" ", "".join(self._term)).strip()
            self._term = None
        if self._pending_term:
            self._prefix = f"{self._pending_term}: "
        self._pending_term = ""

    def _close_cell(self) -> None:
        cell = self._cells.pop()
        is_th = self._cell_is_th.pop() if self._cell_is_th else False
        if self._rows:
            self._rows[-1][0].append(_SPACE.sub(" ", "".join(cell)).strip())
            self._rows[-1][2].append(is_th)

    def _close_cells(self) -> None:
        while self._rows and len(self._cells) > self._rows[-1][1]:
            self._close_cell()

    def _close_row(self) -> None:
        self._close_cells()
        cells, _, is_th = self._rows.pop()
        if not cells:
            return
        in_table = bool(self._tables) and len(self._rows) == self._tables[-1]
        if in_table and self._first_row[-1]:
            self._first_row[-1] = False
            if len(cells) >= 2 and all(is_th) and any(cells):
                self._headers[-1] = cells  # the header row: its cells name the columns
                return
        header = self._headers[-1] if in_table else None
        if header is not None:
            line = header_row(header, cells)
        else:
            line = f"{cells[0]}: {cells[1]}" if len(cells) == 2 else " | ".join(cells)
        if line:
            self._emit(line)
        self._break()

    def finish(self) -> StorageText:
        self.close()
        while self._link:
            self._close_link()
        while self._rows:
            self._close_row()
        while self._cells:  # cells outside any row: keep their text
            text = "".join(self._cells.pop())
            self._emit(text)
        self._break()
        return StorageText(_tidy(self.lines), tuple(self.links))


def header_row(header: list[str], cells: list[str]) -> str:
    """``Header: cell; Header: cell.``, the one text form of a table row under a header row
    (Confluence storage here, Jira's ADF too); a cell's own "; " would read as the next pair."""
    pairs = []
    for i, cell in enumerate(cells):
        cell = cell.replace("; ", ", ").strip()
        if not cell:
            continue
        name = header[i].replace("; ", ", ").strip() if i < len(header) else ""
        pairs.append(f"{name}: {cell}" if name else cell)
    if not pairs:
        return ""
    line = "; ".join(pairs)
    return line if line.endswith((".", "!", "?")) else line + "."


def _tidy(lines: list[str]) -> str:
    out = (_SPACE.sub(" ", line).strip() for line in lines)
    return "\n".join(line for line in out if line)


def storage_to_text(storage: str, users: Mapping[str, str] | None = None) -> StorageText:
    """Plain text and linked page titles of a Confluence storage-format document. ``users``:
    display names by account id (or user key, username) for mentions without a link body.

    Never raises: markup the tolerant parser still chokes on is reduced to its text content.
    """
    if not storage:
        return StorageText("")
    converter = _Converter(users)
    try:
        converter.feed(storage)
        return converter.finish()
    except Exception:  # noqa: BLE001 - malformed pages must still compile
        stripped = html.unescape(_TAG.sub("\n", storage))
        return StorageText(_tidy(stripped.split("\n")))
