"""HTML of the web view. Every piece of text that came from a source, a principal or a request
goes through :func:`inert`; the pages need no script, and the Content-Security-Policy forbids
any."""

from __future__ import annotations

import html
from urllib.parse import quote, urlencode

from ..provenance.answers import AuditReport
from ..sanitize import link_target
from ..query import Answer
from .visible import (
    AnswerSummary, ClaimOut, DbomOut, FiledPageOut, HistoryEntry, PageOut, PageRef, SearchHit,
)

CSP = ("default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
       "frame-ancestors 'none'; base-uri 'none'")
NOT_FOUND_TITLE = "Not found"

CSS = """
body{font-family:system-ui,sans-serif;margin:0;color:#1d2430;background:#fafbfc}
header{background:#1f3a5f;color:#fff;padding:.6em 1.2em;display:flex;gap:1.5em;align-items:center}
header a{color:#fff;text-decoration:none}header .who{margin-left:auto}
main{padding:1em 1.5em;max-width:70em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccd;padding:.3em .6em;
text-align:left;vertical-align:top}th{background:#eef1f5}
.winner{color:#145214}.overruled{color:#8a1f11;text-decoration:line-through}
.contested{color:#8a5a00;font-weight:bold}.ok{color:#145214;font-weight:bold}
.bad{color:#8a1f11;font-weight:bold}code{font-size:.9em}
form.inline{display:inline}input[type=search],input[type=password]{padding:.3em;width:20em}
"""


def inert(text: object) -> str:
    """Source text as inert HTML: the one place text is escaped for the web view. (The wiki's
    own rule, :mod:`compiler.sanitize`, makes text inert as *Markdown*; the web view renders
    no Markdown, so HTML escaping is the whole rule here.)"""
    return html.escape("" if text is None else str(text), quote=True)


def _source_title(title: str, url: str | None) -> str:
    """A source's title, linked to the record only when :func:`compiler.sanitize.link_target`
    accepts its URL (http, https, mailto); never ``javascript:`` or ``data:``."""
    target = link_target(url)
    if target is None:
        return inert(title)
    return f'<a href="{inert(target)}" rel="noopener noreferrer">{inert(title)}</a>'



def page_url(page_id: str, what: str = "page") -> str:
    return f"/{what}/" + quote(page_id, safe="/")


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _a(href: str, text: str) -> str:
    return f'<a href="{inert(href)}">{inert(text)}</a>'


def layout(title: str, body: str, who: str | None) -> str:
    user = ("" if who is None else
            f'<span class="who">signed in as <b>{inert(who)}</b> '
            '<form class="inline" method="post" action="/logout">'
            '<button type="submit">sign out</button></form></span>')
    nav = ('<a href="/">Folio</a><a href="/answers">Answers</a>'
           '<form class="inline" method="get" action="/search">'
           '<input type="search" name="q" placeholder="search" aria-label="search">'
           '</form>') if who is not None else '<a href="/">Folio</a>'
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{inert(title)} · Folio</title>"
            '<link rel="stylesheet" href="/static/folio.css"></head>'
            f"<body><header>{nav}{user}</header><main>{body}</main></body></html>")


def login(error: bool) -> str:
    msg = '<p class="bad">That token was not accepted.</p>' if error else ""
    return layout("Sign in", f"<h1>Sign in</h1>{msg}"
                  '<form method="post" action="/login">'
                  '<label>Access token <input type="password" name="token" '
                  'autocomplete="off" required></label> '
                  '<button type="submit">Sign in</button></form>', None)


def not_found(who: str | None) -> str:
    return layout(NOT_FOUND_TITLE, "<h1>Not found</h1><p>There is no such page.</p>", who)


def index(pages: list[PageRef], who: str | None) -> str:
    by_type: dict[str, list[PageRef]] = {}
    for p in pages:
        by_type.setdefault(p.type, []).append(p)
    parts = [f"<h1>Index</h1><p>{_count(len(pages), 'page')}.</p>"]
    for etype, refs in by_type.items():
        parts.append(f"<h2>{inert(etype)} ({len(refs)})</h2><ul>")
        parts += [f"<li>{_a(page_url(r.id), r.title)}</li>" for r in refs]
        parts.append("</ul>")
    return layout("Index", "".join(parts), who)


def _value(c: ClaimOut) -> str:
    """The value with each mention of a visible page linked; the rest is plain text."""
    out, pos = [], 0
    for link in sorted(c.links, key=lambda m: m.start):
        if link.start < pos:
            continue
        out.append(inert(c.value[pos:link.start]))
        out.append(_a(page_url(link.page), link.title or c.value[link.start:link.end]))
        pos = link.end
    out.append(inert(c.value[pos:]))
    return "".join(out)


def page(p: PageOut, who: str | None) -> str:
    by_id = {c.id: c for c in p.claims}
    rows = "".join(
        f'<tr class="{inert(c.status)}"><td>{inert(c.attribute)}</td><td>{_value(c)}</td>'
        f"<td>{inert(c.status)}</td><td><code>{inert(c.source)}</code></td>"
        f"<td>{inert(c.authority_rule)} ({c.authority_rank})</td></tr>"
        for c in p.claims if c.kind != "statement")
    facts = ("<h2>Claims</h2><table><tr><th>Attribute</th><th>Value</th><th>Status</th>"
             f"<th>Source</th><th>Authority</th></tr>{rows}</table>") if rows else ""
    stm = "".join(f"<li>{_value(c)} <code>{inert(c.source)}</code></li>"
                  for c in p.claims if c.kind == "statement")
    statements = f"<h2>Statements</h2><ul>{stm}</ul>" if stm else ""
    conf = []
    for k in p.conflicts:
        if k.state == "open":
            vals = " / ".join(inert(by_id[i].value) for i in k.contested if i in by_id)
            conf.append(f'<li class="contested">{inert(k.attribute)}: open contradiction '
                        f"({vals})</li>")
        else:
            conf.append(f'<li>{inert(k.attribute)}: resolved as <b>{inert(k.value)}</b><ul>'
                        + "".join(f'<li class="overruled-item"><span class="overruled">'
                                  f"{inert(o.value)}</span> — <code>{inert(o.source)}</code> "
                                  f"({inert(o.rule)}, rank {o.rank}): {inert(o.reason)}</li>"
                                  for o in k.overruled) + "</ul></li>")
    conflicts = f"<h2>Conflicts</h2><ul>{''.join(conf)}</ul>" if conf else ""
    back = "".join(f"<li>{_a(page_url(r.id), r.title)}</li>" for r in p.backlinks)
    backlinks = f"<h2>Referenced by</h2><ul>{back}</ul>" if back else ""
    src = "".join(
        f"<tr><td><code>{inert(s.key)}</code></td><td>{inert(s.version)}</td>"
        f"<td><code>{inert(s.sha256[:16])}</code></td><td>{_source_title(s.title, s.url)}</td>"
        "</tr>"
        for s in p.sources)
    aliases = (f"<p>Also known as: {inert(', '.join(p.aliases))}</p>" if p.aliases else "")
    body = (f"<h1>{inert(p.title)}</h1><p>{inert(p.type)} · "
            f"{_a(page_url(p.id, 'dbom'), 'DBOM and verification')} · "
            f"{_a(page_url(p.id, 'history'), 'change history')}</p>{aliases}"
            f"{facts}{statements}{conflicts}{backlinks}"
            "<h2>Sources</h2><table><tr><th>Record</th><th>Version</th><th>SHA-256</th>"
            f"<th>Title</th></tr>{src}</table>")
    return layout(p.title, body, who)


def filed_answer(a: FiledPageOut, who: str | None) -> str:
    """A filed answer's page: its markdown as text (the sources' words in it stay data)."""
    body = (f"<h1>{inert(a.title)}</h1><p>{inert(a.type)} · filed answer</p>"
            f"<pre>{inert(a.text)}</pre>")
    return layout(a.title, body, who)


def search(q: str, hits: list[SearchHit], who: str | None) -> str:
    items = []
    for h in hits:
        sub = "".join(f"<li>{inert(c.attribute)}: {inert(c.value)}</li>" for c in h.matches)
        items.append(f"<li>{_a(page_url(h.page.id), h.page.title)} ({inert(h.page.type)})"
                     f"<ul>{sub}</ul></li>")
    ask = _a("/ask?" + urlencode({"q": q}), "Answer it as a question, with sources")
    body = (f"<h1>Search</h1><p>{_count(len(hits), 'page')} match <q>{inert(q)}</q>. "
            f"{ask}</p><ul>{''.join(items)}</ul>")
    return layout("Search", body, who)


def dbom(d: DbomOut, title: str, who: str | None) -> str:
    cls = "ok" if d.status == "verified" else "bad"
    problem = f"<p>{inert(d.problem)}</p>" if d.problem else ""
    digest = f"<p>Page sha256: <code>{inert(d.page_sha256)}</code></p>" if d.page_sha256 else ""
    deps = "".join(f"<li><code>{inert(s)}</code></li>" for s in d.sources)
    body = (f"<h1>DBOM: {inert(title)}</h1>"
            f'<p>Status: <span class="{cls}" id="dbom-status">{inert(d.status)}</span></p>'
            f"{problem}{digest}<p>Signed by key: <code>{inert(d.signer_key)}</code></p>"
            f"<h2>Source versions pinned</h2><ul>{deps}</ul>"
            f"<p>{_a(page_url(d.page), 'back to the page')}</p>")
    return layout(f"DBOM {title}", body, who)


def history(entries: list[HistoryEntry], ref: PageRef, who: str | None) -> str:
    rows = "".join(f"<tr><td>{inert(e.day)}</td><td>{inert(e.op)}</td>"
                   f"<td>{inert(e.change)}</td></tr>" for e in entries)
    body = (f"<h1>History: {inert(ref.title)}</h1><table><tr><th>Day</th><th>Operation</th>"
            f"<th>Change</th></tr>{rows}</table><p>{_a(page_url(ref.id), 'back to the page')}</p>")
    return layout(f"History {ref.title}", body, who)


def answers(items: list[AnswerSummary], who: str | None) -> str:
    li = "".join(f"<li>{_a('/answers/' + a.id, a.question)} — {inert(a.principal)}, "
                 f"{inert(a.answered_at.isoformat())}</li>" for a in items)
    return layout("Answers", f"<h1>Signed answers</h1><p>{_count(len(items), 'answer')}.</p>"
                  f"<ul>{li}</ul>", who)


def audit(r: AuditReport, who: str | None) -> str:
    rows = "".join(
        f"<tr><td><code>{inert(s.claim_id)}</code></td><td>{inert(s.attribute)}</td>"
        f"<td>{inert(s.value)}</td><td>{inert(s.status)}</td><td>{inert(s.claim)}</td>"
        f"<td>{_a(page_url(s.page.removesuffix('.md')), s.page)} ({inert(s.page_flag)})</td>"
        f"<td><code>{inert(s.source)}</code> ({inert(s.source_flag)})</td></tr>"
        for s in r.trace)
    verdict = ('<span class="bad">changed since answered</span>' if r.changed
               else '<span class="ok">unchanged since answered</span>')
    body = (f"<h1>Audit of answer {inert(r.id)}</h1><p>Question: {inert(r.question)}</p>"
            f"<pre>{inert(r.answer)}</pre><p>Asked by {inert(r.principal)} at "
            f"{inert(r.answered_at.isoformat())}; signature verified ({inert(r.signed_by)}); "
            f'<span id="audit-verdict">{verdict}</span></p>'
            "<h2>Trail: answer → claims → pages → source versions</h2><table><tr><th>Claim</th>"
            "<th>Attribute</th><th>Value</th><th>Status</th><th>Claim now</th><th>Page</th>"
            f"<th>Source version</th></tr>{rows}</table>")
    return layout(f"Audit {r.id}", body, who)


def answer(a: Answer, who: str | None) -> str:
    return layout("Answer", f"<h1>{inert(a.question)}</h1><pre>{inert(a.text())}</pre>", who)
