"""Permissions travel to every surface, on every corpus with restricted records.

For each corpus with a directory (the Acme example and the benchmark companies, never the
held-out ones), each principal of its directory (and one it does not know) is run through every
serving surface: ``folio query``, ``folio ask`` (offline), ``folio show``, ``folio export``,
``folio lint``, ``folio ask --save`` (answer pages), an audience vault (index.md, log.md,
pages, answer pages), the web view and JSON API (``folio serve`` started as a real process)
and MCP (``folio mcp --http``, a real process, through the official SDK client).

What the principal may not see is derived from the corpus's *records* and the directory, not
from the code under test and not hard-coded: the records whose ACL does not let them in are
hidden; a page no readable record declares is hidden; a string is forbidden when only hidden
records say it (a hidden page's id, a hidden record's key, title, name or alias, a value or
sentence of a claim compiled from a hidden record) and no readable record says it too. Every
output is scanned for every forbidden string; a hit is a leak and the count must be 0. A
hidden page must answer exactly as a missing one.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from typer.testing import CliRunner

from compiler.build import compile_wiki, wiki_state
from compiler.models import ACL, Principal, SourceRecord
from compiler.registry import entity_id_for
from compiler.serve.auth import add_token
from compiler.views import principal, stored_directory
from conftest import ACME, NOW, TODAY, flat
from pipelines.folio_cli import app

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "benchmarks" / "corpora"
# corpora with restricted records; larkspur, tidewater and fenwick are held out: never opened
CORPORA = {"acme": ACME, **{n: BENCH / n for n in
                            ("marlowe", "ashgrove", "brindle", "kestrel", "northwind")}}
STRANGER = "mallory"  # in no directory
_MIN = 5  # shorter strings ("USD", "80.0") are too common to attribute to one record


def _distinctive(value: str) -> bool:
    v = value.strip()
    return len(v) >= _MIN and not (v.isalpha() and len(v) < 12) and not v.isdigit()


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


def _record_text(r: SourceRecord) -> list[str]:
    """Everything a reader of the record reads in it."""
    out = [r.title, r.name or "", r.body, r.key, r.url or "", r.container or "", r.status or "",
           r.version, r.updated_at.date().isoformat() if r.updated_at else "",
           *r.aliases, *r.labels, *(str(v) for v in r.fields.values() if v is not None)]
    out += [ref.target_name for ref in r.references]
    return out


@dataclass
class Secrets:
    """What one principal must never be shown, derived from the records."""

    hidden_pages: set[str] = field(default_factory=set)
    strings: set[str] = field(default_factory=set)  # titles, names, values, sentences, keys
    questions: list[str] = field(default_factory=list)
    hidden_titles: list[str] = field(default_factory=list)

    def leaks(self, text: str, echo: tuple[str, ...] = (), configured: str = "") -> list[str]:
        """Forbidden strings in ``text``; ``echo``: the caller's own words; ``configured``:
        text the corpus's configuration states (SCHEMA.md renders schema.yaml and the base
        schema, whose phrases may contain a hidden value's words: "key account manager")."""
        for e in echo:  # the caller's own words echoed back are theirs
            for form in {e, json.dumps(e)[1:-1], html.escape(e, quote=True), quote(e),
                         quote(e, safe=""), quote(e).replace("%20", "+")}:
                text = text.replace(form, " ")
        variants = [text, html.unescape(text)]
        found = []
        for p in self.hidden_pages:
            pat = r"(?<![a-z0-9-])" + re.escape(p) + r"(?![a-z0-9-])"
            if any(re.search(pat, t) or p.replace("/", "%2F") in t for t in variants):
                found.append(f"page {p!r}")
        flat_texts = [_norm(t) for t in variants]
        for s in self.strings:
            if configured and _norm(s) in configured:
                continue
            pat = r"(?<![0-9a-z])" + re.escape(_norm(s)) + r"(?![0-9a-z])"
            if any(re.search(pat, t) for t in flat_texts):
                found.append(f"string {s!r}")
        return found


@dataclass
class World:
    name: str
    corpus: Path
    wiki: Path
    principals: dict[str, Principal]
    secrets: dict[str, Secrets]
    pages: list[str]
    tokens_file: Path
    tokens: dict[str, str]


def secrets_for(state, who: Principal) -> Secrets:  # noqa: ANN001
    records = {}
    for key, raw, _, _ in state.load_records(state.all_record_keys()):
        records[key] = SourceRecord.model_validate_json(raw)
    readable = {k for k, r in records.items() if r.acl.allows(who)}
    hidden = set(records) - readable
    visible_text = [t for k in readable for t in _record_text(records[k])]
    claims = [c for c, _ in state.iter_claims()]
    # what Folio compiles from a readable record is the reader's too ("account: Initech")
    visible_text += [t for c in claims if c.source.key in readable for t in (c.value, c.quote)]
    said = _norm("\n".join(visible_text))
    declared_by: dict[str, set[str]] = {}
    for k, r in records.items():
        declared_by.setdefault(entity_id_for(r), set()).add(k)
    s = Secrets()
    pages = set(state.page_ids())
    s.hidden_pages = {p for p in pages if p in declared_by and not declared_by[p] & readable}
    # a page id is Folio's own word: forbidden even when a readable record says the name
    candidates: set[str] = set()
    for k in hidden:
        r = records[k]
        candidates |= {r.title, *(r.aliases), k}
        if r.name:
            candidates.add(r.name)
    for c in claims:
        if c.source.key in hidden:
            candidates |= {c.value, c.quote}
    s.strings = {c for c in candidates if _distinctive(c) and _norm(c) not in said}
    # what a curious principal asks: the hidden pages by name, hidden facts by attribute
    names = state.entity_names(s.hidden_pages)
    s.hidden_titles = sorted(n for n in names.values() if _norm(n) not in said)[:6]
    asked: dict[str, None] = {}
    for c in sorted(claims, key=lambda c: (c.subject, c.attribute, c.id)):
        if c.source.key in hidden and c.kind in ("fact", "field"):
            ent = state.entity(c.subject)
            if ent is not None:
                asked.setdefault(f"What is the {c.attribute} of {ent.name}?")
    qs = list(asked)
    s.questions = qs[:: max(1, len(qs) // 6)][:6] + [f"What is {t}?" for t in s.hidden_titles[:2]]
    return s


def _configuration(world: World) -> str:
    """What the operator declared (not what a record says): the bundled base schema and the
    corpus's schema.yaml and authority.yaml."""
    files = [REPO / "compiler" / "schema" / "base.yaml", world.corpus / "schema.yaml",
             world.corpus / "authority.yaml"]
    return _norm("\n".join(f.read_text(encoding="utf-8") for f in files if f.exists()))


def _free_port() -> int:
    with closing(socket.socket()) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module", params=sorted(CORPORA))
def world(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> World:
    name = request.param
    root = tmp_path_factory.mktemp(f"surfaces-{name}")
    corpus = root / name  # a copy: filed answers are kept beside the corpus
    shutil.copytree(CORPORA[name], corpus)
    wiki = root / "wiki"
    report = compile_wiki(corpus, wiki, today=TODAY)
    assert report.rejected == 0, [str(e) for e in report.errors]
    tokens_file = root / "tokens.yaml"
    with closing(wiki_state(wiki)) as state:
        names = sorted(stored_directory(state).users) + [STRANGER]
        whos = {n: principal(state, n) for n in names}
        secrets = {n: secrets_for(state, who) for n, who in whos.items()}
        pages = state.page_ids()
    tokens = {n: add_token(tokens_file, n) for n in names if n != STRANGER}
    tokens["operator"] = add_token(tokens_file, "ops", operator=True)
    return World(name, corpus, wiki, whos, secrets, pages, tokens_file, tokens)


def _cli(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(app, list(args), env={"FOLIO_BACKEND": "offline", "COLUMNS": "2000"})
    return r.exit_code, r.stdout + r.stderr


def test_every_corpus_hides_something(world: World) -> None:
    """The counts below mean something only if each principal has secrets to leak."""
    hiding = [n for n, s in world.secrets.items() if s.hidden_pages and s.strings]
    assert len(hiding) >= 2, world.name
    assert world.secrets[STRANGER].hidden_pages


def test_cli_surfaces_leak_nothing(world: World) -> None:
    """query, ask (offline), show, export, lint as each principal."""
    w = ["--wiki", str(world.wiki)]
    report: dict[str, list[str]] = {}
    for name, s in world.secrets.items():
        as_ = ["--as", name]
        missing_code, missing_text = _cli("show", "no/such-page-xyz", *w, *as_, "--raw")
        found: list[str] = []
        for q in s.questions[:4]:
            for cmd in (["query", q, "--json"], ["ask", q]):
                _, text = _cli(*cmd, *w, *as_)
                found += [f"{cmd[0]} {q!r}: {x}" for x in s.leaks(text, (q,))]
        for page in world.pages + s.hidden_titles:
            code, text = _cli("show", page, *w, *as_, "--raw")
            if page in s.hidden_pages or page in s.hidden_titles:
                same = (code, flat(text.replace(page, "no/such-page-xyz"))) == (
                    missing_code, flat(missing_text))
                if not same:
                    found.append(f"show {page!r} differs from a missing page")
                continue
            found += [f"show {page}: {x}" for x in s.leaks(text)]
        _, text = _cli("export", "claims", *w, *as_)
        found += [f"export: {x}" for x in s.leaks(text)]
        # today, and years on: every source is then stale, and its finding names the pages
        # it supports
        for now in (NOW, "2099-01-01T00:00:00+00:00"):
            _, text = _cli("lint", *w, *as_, "--json", "--now", now)
            found += [f"lint {now[:4]}: {x}" for x in s.leaks(text)]
        report[name] = found
    print(f"\n{world.name} CLI leaks: {({n: len(v) for n, v in report.items()})}")
    _dump(world, report)
    assert not any(report.values()), {n: v[:6] for n, v in report.items() if v}


def _visible_questions(world: World, name: str) -> list[str]:
    """Questions about what ``name`` may read (to file an answer as them)."""
    out: dict[str, None] = {}
    with closing(wiki_state(world.wiki)) as state:
        who = world.principals[name]
        for c, status in state.iter_claims():
            if (status == "winner" and c.kind in ("field", "fact") and c.attribute != "name"
                    and c.acl.allows(who) and c.subject not in world.secrets[name].hidden_pages):
                ent = state.entity(c.subject)
                if ent is not None:
                    out.setdefault(f"What is the {c.attribute} of {ent.name}?")
    return list(out)[:8]


@pytest.fixture(scope="module")
def filed(world: World) -> dict[str, str]:
    """Each principal asks a question of their own and files the answer back as a page."""
    out = {}
    w = ["--wiki", str(world.wiki)]
    for name in world.secrets:
        for q in _visible_questions(world, name):
            code, text = _cli("ask", q, *w, "--as", name, "--save")
            assert code == 0, text
            if "filed as" in text:  # an answer that found nothing is not filed
                out[name] = q
                break
    # a filed answer is an input like a record: the next compile renders it again
    compile_wiki(world.corpus, world.wiki, today=TODAY)
    return out


def test_answer_pages_and_vaults_leak_nothing(world: World, filed: dict[str, str],
                                              tmp_path: Path) -> None:
    """Answer pages (shown with --as) and every file of each principal's audience vault:
    pages, index.md, log.md, answer pages."""
    assert filed, world.name
    with closing(wiki_state(world.wiki)) as state:
        answer_pages = [p for p in state.page_ids() if p.startswith("answer/")]
    answer_pages = answer_pages or [p.relative_to(world.wiki).as_posix()[:-3]
                                    for p in (world.wiki / "answer").glob("*.md")]
    assert answer_pages
    report: dict[str, list[str]] = {}
    for name, s in world.secrets.items():
        found = []
        for page in answer_pages:
            _, text = _cli("show", page, "--wiki", str(world.wiki), "--as", name, "--raw")
            found += [f"show {page}: {x}" for x in s.leaks(text)]
        if name != STRANGER:
            vault = tmp_path / name
            code, text = _cli("render", "--audience", name, "--out", str(vault),
                              "--wiki", str(world.wiki))
            assert code == 0, text
            for path in sorted(vault.rglob("*")):
                if path.is_file():
                    rel = path.relative_to(vault).as_posix()
                    body = rel + "\n" + path.read_text(encoding="utf-8", errors="replace")
                    found += [f"vault {rel}: {x}" for x in s.leaks(
                        body, configured=_configuration(world) if rel == "SCHEMA.md" else "")]
        report[name] = found
    print(f"\n{world.name} answer page / vault leaks: {({n: len(v) for n, v in report.items()})}")
    _dump(world, report)
    assert not any(report.values()), {n: v[:6] for n, v in report.items() if v}


def _dump(world: World, report: dict[str, list[str]]) -> None:
    if os.environ.get("FOLIO_LEAK_DUMP"):
        with open(os.environ["FOLIO_LEAK_DUMP"], "a", encoding="utf-8") as fh:
            for name, found in report.items():
                for x in found:
                    fh.write(f"{world.name}\t{name}\t{x}\n")


class _Server:
    def __init__(self, world: World, *args: str, path: str) -> None:
        self.port = _free_port()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(REPO), os.environ.get("PYTHONPATH", "")]), "FOLIO_BACKEND": "offline"}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from pipelines.folio_cli import app; app()", *args,
             "--wiki", str(world.wiki), "--tokens", str(world.tokens_file),
             "--port", str(self.port)],
            env=env, cwd=str(REPO), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(self.proc.stderr.read().decode() if self.proc.stderr else "")
            try:
                httpx.get(self.url + path, timeout=1)
                return
            except httpx.TransportError:
                time.sleep(0.2)
        raise AssertionError(f"{args[0]} did not start")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def test_served_web_view_and_api_leak_nothing(world: World, filed: dict[str, str]) -> None:
    server = _Server(world, "serve", path="/api/me")
    try:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            op = {"Authorization": f"Bearer {world.tokens['operator']}"}
            rids = [a["id"] for a in client.get("/api/answers", headers=op).json()]
            report: dict[str, list[str]] = {}
            count = 0
            for name, s in world.secrets.items():
                if name == STRANGER:
                    continue
                h = {"Authorization": f"Bearer {world.tokens[name]}"}
                missing = {kind: client.get(f"/{kind}/no/such-page-xyz", headers=h)
                           for kind in ("page", "api/pages")}
                urls: list[tuple[str, tuple[str, ...]]] = [
                    (u, ()) for u in ("/", "/answers", "/api/me", "/api/pages", "/api/answers")]
                for pid in world.pages:
                    # the HTML of a DBOM and a history renders what their JSON holds
                    urls += [(f"/{k}/{pid}", ()) for k in
                             ("page", "api/pages", "api/dbom", "api/history")]
                urls += [(f"/{k}/{rid}", ()) for rid in rids for k in ("answers", "api/answers")]
                for q in s.questions[:3] + s.hidden_titles[:2]:
                    urls += [(f"/{k}?q={quote(q)}", (q,)) for k in
                             ("search", "api/search", "ask", "api/query", "api/ask")]
                # their answers list and audit the questions they asked: their own words
                mine = (*s.questions, *s.hidden_titles, *filed.values())
                found = []
                for url, echo in urls:
                    echo = mine if "answers" in url else echo
                    r = client.get(url, headers=h)
                    count += 1
                    if r.status_code not in (200, 404):
                        found.append(f"{url}: status {r.status_code}")
                    found += [f"{url}: {x}" for x in s.leaks(r.text, echo)]
                    pid = url.split("/", 2)[-1].removeprefix("pages/")
                    if url.startswith(("/page/", "/api/pages/")) and pid in s.hidden_pages:
                        kind = "page" if url.startswith("/page/") else "api/pages"
                        if (r.status_code, r.content) != (missing[kind].status_code,
                                                          missing[kind].content):
                            found.append(f"{url}: differs from a missing page")
                report[name] = found
    finally:
        server.stop()
    print(f"\n{world.name}: {count} served responses, leaks "
          f"{({n: len(v) for n, v in report.items()})}")
    _dump(world, report)
    assert not any(report.values()), {n: v[:6] for n, v in report.items() if v}


def test_mcp_leaks_nothing(world: World) -> None:
    import anyio
    import httpx2
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    server = _Server(world, "mcp", "--http", path="/mcp")
    report: dict[str, list[str]] = {}

    async def run(name: str, s: Secrets) -> list[str]:
        found = []
        headers = {"Authorization": f"Bearer {world.tokens[name]}"}
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            async with streamable_http_client(server.url + "/mcp", http_client=http) as (r, w):
                async with ClientSession(r, w) as session:
                    await session.initialize()
                    calls = [("show_page", {"page": p}) for p in world.pages]
                    calls += [("page_dbom", {"page": p}) for p in sorted(s.hidden_pages)]
                    for q in s.questions[:4] + s.hidden_titles[:3]:
                        calls += [("search", {"query": q}), ("query", {"question": q}),
                                  ("ask", {"question": q}), ("show_page", {"page": q})]
                    missing = await session.call_tool("show_page", {"page": "no/such-page-xyz"})
                    gone = "".join(getattr(c, "text", "") for c in missing.content)
                    for tool, args in calls:
                        res = await session.call_tool(tool, args)
                        text = "".join(getattr(c, "text", "") for c in res.content)
                        found.extend(f"{tool} {args}: {x}"
                                     for x in s.leaks(text, tuple(args.values())))
                        if tool == "show_page" and args["page"] in s.hidden_pages \
                                and text != gone:
                            found.append(f"show_page {args['page']} differs from a missing page")
        return found

    try:
        for name, s in world.secrets.items():
            if name != STRANGER:
                report[name] = anyio.run(run, name, s)
    finally:
        server.stop()
    print(f"\n{world.name} MCP leaks: {({n: len(v) for n, v in report.items()})}")
    _dump(world, report)
    assert not any(report.values()), {n: v[:6] for n, v in report.items() if v}


def test_a_visible_records_fact_of_a_restricted_subject_stays_hidden_with_it(
        world: World) -> None:
    """The compile-time rule (docs/permissions.md): a claim a readable record states of a page
    the reader may not see is shown to nobody who may not see that page — on no surface, and
    not by its subject id."""
    with closing(wiki_state(world.wiki)) as state:
        from compiler.views import Visibility

        for name, who in world.principals.items():
            vis = Visibility(state, who)
            for c, _ in state.iter_claims():
                if c.acl.allows(who) and c.subject in world.secrets[name].hidden_pages:
                    assert not vis.claim_visible(c), (name, c.subject, c.attribute)


def test_the_published_central_index_leaks_nothing(world: World, filed: dict[str, str],
                                                   tmp_path: Path) -> None:
    """The central index (``folio publish``), read back through its verified cache: show,
    export and query as each principal, the same rule as the local wiki."""
    store = tmp_path / "store"
    code, text = _cli("publish", "--wiki", str(world.wiki), "--to", str(store), "-q")
    assert code == 0, text
    w = ["--wiki", store.as_uri()]
    report: dict[str, list[str]] = {}
    old = os.environ.get("FOLIO_CACHE_DIR")
    os.environ["FOLIO_CACHE_DIR"] = str(tmp_path / "cache")
    try:
        for name, s in world.secrets.items():
            as_ = ["--as", name]
            found = []
            # the hidden pages, and a sample of the rest (the local wiki's test shows them all)
            shown = sorted(s.hidden_pages) + [p for p in world.pages[::4]
                                              if p not in s.hidden_pages]
            for page in shown:
                _, text = _cli("show", page, *w, *as_, "--raw")
                found += [f"show {page}: {x}" for x in s.leaks(text, (page,) if page in
                                                                s.hidden_pages else ())]
            _, text = _cli("export", "claims", *w, *as_)
            found += [f"export: {x}" for x in s.leaks(text)]
            for q in s.questions[:2]:
                _, text = _cli("query", q, *w, *as_, "--json")
                found += [f"query {q!r}: {x}" for x in s.leaks(text, (q,))]
            report[name] = found
    finally:
        if old is None:
            os.environ.pop("FOLIO_CACHE_DIR", None)
        else:
            os.environ["FOLIO_CACHE_DIR"] = old
    _dump(world, report)
    assert not any(report.values()), {n: v[:6] for n, v in report.items() if v}


def test_a_stale_answer_names_nothing_its_reader_lost(tmp_path: Path) -> None:
    """An answer page's staleness notice is read as its asker reads the wiki now: when the
    record it cites is narrowed to a group the asker is not in and its value changes, neither
    the new value nor the page (which no longer exists for the asker) reaches them, through
    ``folio show`` or the served page; the operator still sees the page."""
    corpus = tmp_path / "acme"
    shutil.copytree(ACME, corpus)
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki, today=TODAY)
    handbook = corpus / "handbook" / "returns-handling.md"
    with closing(wiki_state(wiki)) as state:
        dave = principal(state, "dave")
        cited = next(c for c, st in state.iter_claims()
                     if c.source.title == "Returns Handling" and c.kind == "fact"
                     and st == "winner" and c.acl.allows(dave) and any(ch.isdigit()
                                                                       for ch in c.value))
        page_name = state.entity(cited.subject).name
    q = f"What is the {cited.attribute} of {page_name}?"
    code, text = _cli("ask", q, "--wiki", str(wiki), "--as", "dave", "--save")
    assert code == 0 and "filed as" in text, text
    answer_page = text.split("filed as [[", 1)[1].split("]]", 1)[0]
    shown = _cli("show", answer_page, "--wiki", str(wiki), "--as", "dave", "--raw")
    assert shown[0] == 0 and cited.value in shown[1]
    # the record moves behind finance (dave is staff only) and its value changes
    new_value = re.sub(r"\d+", lambda m: str(int(m.group()) + 7), cited.value)
    body = handbook.read_text(encoding="utf-8")
    assert body.count(cited.value) == 1
    body = body.replace(cited.value, new_value).replace(
        "type: process\n", "type: process\nacl: {groups: [finance]}\n", 1)
    handbook.write_text(body, encoding="utf-8")
    compile_wiki(corpus, wiki, today=TODAY)
    operator = (wiki / f"{answer_page}.md").read_text(encoding="utf-8")
    assert "stale: true" in operator
    assert new_value not in operator  # the notice is the asker's: the new value is not theirs
    code, text = _cli("show", answer_page, "--wiki", str(wiki), "--as", "dave", "--raw")
    missing = _cli("show", "answer/no-such-answer", "--wiki", str(wiki), "--as", "dave", "--raw")
    assert (code, flat(text.replace(answer_page, "answer/no-such-answer"))) == (
        missing[0], flat(missing[1]))
    assert new_value not in text and cited.subject not in text.replace(answer_page, "")
    # bob (finance) may read the record now, but the answer is dave's view: it names the page
    # as dave read it, so bob sees it only if he reads every citation as dave did
    assert _cli("show", answer_page, "--wiki", str(wiki), "--raw")[0] == 0
