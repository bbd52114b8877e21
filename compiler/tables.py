"""Tables in body text, cell by cell with spans: a row's label, and each other cell under its
column header.

Two shapes are read:

* row lines as ``connectors/xhtml.py`` writes a Confluence table with a header row:
  ``Tier: Enterprise; Refund window: 30 days.`` (header: cell pairs; the first is the row label);
* pipe tables as markdown and Jira write them (``| Tier | Refund window |`` then data rows; a
  ``|---|`` separator line is skipped; the first row is the header).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PAIR_SEP = re.compile(r";\s+")
_PAIR = re.compile(r"^(?P<k>[^:;|]{1,60}?)\s*:\s+(?P<v>\S.*?)\s*\.?\s*$")
_SEPARATOR = re.compile(r"^[\s|:+-]+$")
_MAX_BARE_LABEL_WORDS = 8


@dataclass(frozen=True)
class Cell:
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Row:
    """One table row: its label (first cell) and the other cells under their headers."""

    start: int
    end: int
    label_header: Cell | None
    label: Cell
    cells: tuple[tuple[Cell, Cell], ...]  # (header, cell)


def _trimmed(text: str, start: int, end: int) -> Cell | None:
    piece = text[start:end]
    left = len(piece) - len(piece.lstrip())
    right = len(piece.rstrip())
    if right <= left:
        return None
    return Cell(piece[left:right], start + left, start + right)


def row_line(text: str, start: int, end: int) -> Row | None:
    """``Header: cell; Header: cell`` (at least two pairs) as a row, else None."""
    line = text[start:end]
    if "; " not in line or ":" not in line:
        return None
    pairs: list[tuple[Cell | None, Cell]] = []
    pos = 0
    for i, piece in enumerate(_PAIR_SEP.split(line)):
        at = line.index(piece, pos)
        pos = at + len(piece)
        m = _PAIR.match(piece)
        if not m and i == 0 and 0 < len(piece.split()) <= _MAX_BARE_LABEL_WORDS:
            # a row label under an empty header cell: "Data retention; Enterprise: 400 days"
            label = _trimmed(text, start + at, start + at + len(piece))
            if label is None:
                return None
            pairs.append((None, label))
            continue
        if not m:
            return None
        k = _trimmed(text, start + at + m.start("k"), start + at + m.end("k"))
        v = _trimmed(text, start + at + m.start("v"), start + at + m.end("v"))
        if k is None or v is None:
            return None
        pairs.append((k, v))
    if len(pairs) < 2:
        return None
    (lh, label), rest = pairs[0], pairs[1:]
    return Row(start, end, lh, label, tuple(rest))


def _cells(text: str, start: int, end: int) -> list[Cell | None]:
    line = text[start:end]
    inner_start = start + (len(line) - len(line.lstrip()))
    inner = line.strip()
    lead = inner.startswith("|")
    body = inner[1:] if lead else inner
    offset = inner_start + (1 if lead else 0)
    if body.endswith("|"):
        body = body[:-1]
    out: list[Cell | None] = []
    pos = 0
    for piece in body.split("|"):
        out.append(_trimmed(text, offset + pos, offset + pos + len(piece)))
        pos += len(piece) + 1
    return out


def pipe_tables(text: str) -> list[Row]:
    """Data rows of the pipe tables in ``text`` (each needs a header row above it)."""
    rows: list[Row] = []
    header: list[Cell | None] | None = None
    pos = 0
    for raw in text.split("\n"):
        m_start, m_end, line = pos, pos + len(raw), raw
        pos = m_end + 1
        if line.count("|") < 1 or not line.strip() or (
                "|" not in line.strip()[1:-1] and not line.strip().startswith("|")):
            header = None
            continue
        if _SEPARATOR.match(line):
            continue
        cells = _cells(text, m_start, m_end)
        if len(cells) < 2:
            header = None
            continue
        if header is None:
            header = cells
            continue
        label = cells[0]
        if label is None:
            continue
        pairs = tuple((h, c) for h, c in zip(header[1:], cells[1:], strict=False)
                      if h is not None and c is not None)
        if pairs:
            rows.append(Row(m_start, m_end, header[0], label, pairs))
    return rows
