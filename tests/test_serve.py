"""``folio serve``: the web view and JSON API for each principal of the Acme directory, through
the real Starlette app (its test client speaks HTTP to the ASGI app in-process)."""

from __future__ import annotations

import html
from pathlib import Path
from urllib.parse import urlencode

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from pipelines.folio_cli import app as cli_app
from compiler.provenance.verify import trust_from
from compiler.serve.app import SESSION_COOKIE, build_app
from compiler.serve.auth import AuthConfig, ConfigError, ProxyConfig, load_auth_config
from compiler.settings import FolioSettings
from serve_wiki import (  # noqa: F401 - fixture
    DISCOUNT_PAGE, PRINCIPALS, Served, forbidden_for, leaks, served,
)


def _client(served: Served, **cfg) -> TestClient:
    config = AuthConfig(tokens_file=served.tokens_file, **cfg)
    return TestClient(build_app(served.wiki, config, trust_from(FolioSettings())))


def _auth(served: Served, who: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {served.tokens[who]}"}


def _every_url(client: TestClient, headers: dict[str, str],
               served: Served) -> list[tuple[str, str]]:
    """Every page, DBOM, history and answer URL the operator can reach, plus searches and
    questions that name the hidden things: a principal is asked for all of them."""
    op = _auth(served, "operator")
    pages = [p["id"] for p in client.get("/api/pages", headers=op).json()]
    urls = ["/", "/answers", "/api/me", "/api/pages", "/api/answers", "/no/such/route",
            "/page/policy/no-such-page", "/api/pages/policy/no-such-page"]
    for pid in pages:
        urls += [f"/page/{pid}", f"/dbom/{pid}", f"/history/{pid}", f"/api/pages/{pid}",
                 f"/api/dbom/{pid}", f"/api/history/{pid}"]
    for rid in served.answers.values():
        urls += [f"/answers/{rid}", f"/api/answers/{rid}"]
    out = [(u, "") for u in urls]
    for q in ("discount", "Discount Approval Policy", "VP approval", "SUP-103", "FHIR",
              "Umbrella Health", "return window", "Globex"):
        # the question is echoed back: the principal typed it, so it is not counted
        out += [(f"/search?q={q}", q), (f"/api/search?q={q}", q), (f"/ask?q={q}", q),
                (f"/api/query?q={q}", q), (f"/api/ask?q={q}", q)]
    return out


@pytest.mark.parametrize("who", PRINCIPALS)
def test_no_response_leaks_what_the_principal_may_not_see(served: Served, who: str) -> None:
    client = _client(served)
    forbidden = forbidden_for(served.wiki, who)
    assert forbidden, "the example directory must hide something from everyone"
    headers = _auth(served, who)
    count = 0
    for url, echo in _every_url(client, headers, served):
        r = client.get(url, headers=headers)
        assert r.status_code in (200, 404), (url, r.status_code)
        text = r.text.replace(f"<q>{echo}</q>", "").replace(f'"question":"{echo}"', "")
        text = text.replace(f"<h1>{echo}</h1>", "").replace(urlencode({"q": echo}), "")
        assert leaks(text, forbidden) == [], (who, url)
        count += 1
    assert count > 100
    print(f"{who}: {count} responses, {len(forbidden)} hidden strings, 0 leaks")


def test_hidden_page_is_a_missing_page(served: Served) -> None:
    client = _client(served)
    carol = _auth(served, "carol")
    for kind in ("page", "dbom", "history", "api/pages", "api/dbom", "api/history"):
        hidden = client.get(f"/{kind}/{DISCOUNT_PAGE}", headers=carol)
        missing = client.get(f"/{kind}/policy/no-such-policy", headers=carol)
        assert hidden.status_code == missing.status_code == 404
        assert hidden.content == missing.content
        assert hidden.headers["content-type"] == missing.headers["content-type"]
    by_title = client.get("/api/pages/Discount Approval Policy", headers=carol)
    assert by_title.status_code == 404 and by_title.json() == {"error": "not found"}
    # the index and its count, and links from pages that mention it
    pages = client.get("/api/pages", headers=carol).json()
    assert DISCOUNT_PAGE not in {p["id"] for p in pages}
    escalation = client.get("/api/pages/process/support-escalation", headers=carol).json()
    assert all(link["page"] != DISCOUNT_PAGE for c in escalation["claims"] for link in c["links"])
    assert f'href="/page/{DISCOUNT_PAGE}"' not in client.get(
        "/page/process/support-escalation", headers=carol).text
    bob = _auth(served, "bob")
    assert len(client.get("/api/pages", headers=bob).json()) > len(pages)
    escalation = client.get("/api/pages/process/support-escalation", headers=bob).json()
    assert any(link["page"] == DISCOUNT_PAGE for c in escalation["claims"] for link in c["links"])


def test_bob_sees_the_discount_policy_with_authority_dbom_history(served: Served) -> None:
    client = _client(served)
    bob = _auth(served, "bob")
    page = client.get(f"/api/pages/{DISCOUNT_PAGE}", headers=bob).json()
    assert page["title"] == "Discount Approval Policy"
    values = {c["attribute"]: c for c in page["claims"]}
    assert values["discount limit"]["value"] == "20%"
    assert values["discount limit"]["status"] == "winner"
    assert values["discount limit"]["authority_rule"]
    dbom = client.get(f"/api/dbom/{DISCOUNT_PAGE}", headers=bob).json()
    assert dbom["status"] == "verified"
    assert dbom["sources"] and all("@" in s for s in dbom["sources"])
    assert dbom["page_sha256"] is None  # a digest of the full page would confirm guesses
    operator = client.get(f"/api/dbom/{DISCOUNT_PAGE}", headers=_auth(served, "operator"))
    assert len(operator.json()["page_sha256"]) == 64
    history = client.get(f"/api/history/{DISCOUNT_PAGE}", headers=bob).json()
    assert history and history[0]["change"] == "created"  # the first compile created it
    html = client.get(f"/page/{DISCOUNT_PAGE}", headers=bob).text
    assert "Discount Approval Policy" in html and "20%" in html


def test_overruled_claims_shown_with_reason(served: Served) -> None:
    client = _client(served)
    page = client.get("/api/pages/policy/return-policy", headers=_auth(served, "bob")).json()
    overruled = [o for k in page["conflicts"] for o in k["overruled"]]
    assert overruled and all(o["reason"] for o in overruled)
    statuses = {c["status"] for c in page["claims"]}
    assert {"winner", "overruled"} <= statuses


def test_dbom_of_a_tampered_page_fails(served: Served, tmp_path: Path) -> None:
    import shutil

    wiki = tmp_path / "wiki"
    shutil.copytree(served.wiki, wiki)
    page = wiki / "policy" / "return-policy.md"
    page.write_text(page.read_text() + "\nedited by hand\n")
    client = TestClient(build_app(wiki, AuthConfig(tokens_file=served.tokens_file),
                                  trust_from(FolioSettings())))
    d = client.get("/api/dbom/policy/return-policy", headers=_auth(served, "bob")).json()
    assert d["status"] == "failed"
    assert "differs" in d["problem"]


def test_answers_and_audit_per_principal(served: Served) -> None:
    client = _client(served)
    bob, carol = _auth(served, "bob"), _auth(served, "carol")
    rid = served.answers["bob"]
    mine = [a["id"] for a in client.get("/api/answers", headers=bob).json()]
    assert mine == [rid]
    trail = client.get(f"/api/answers/{rid}", headers=bob).json()
    assert trail["question"].startswith("What is the maximum discount")
    assert trail["trace"] and all(s["claim"] == "unchanged" for s in trail["trace"])
    assert all(s["source"].count("@") == 1 for s in trail["trace"])
    # another principal's answer is a missing answer, even for someone who could see its claims
    assert client.get(f"/api/answers/{rid}", headers=carol).status_code == 404
    assert client.get(f"/api/answers/{served.answers['carol']}", headers=bob).status_code == 404
    assert client.get("/api/answers/0123456789abcdef0123", headers=carol).content == \
        client.get(f"/api/answers/{rid}", headers=carol).content
    everything = client.get("/api/answers", headers=_auth(served, "operator")).json()
    assert {a["id"] for a in everything} == set(served.answers.values())


def test_search_finds_only_visible_pages(served: Served) -> None:
    client = _client(served)
    bob = client.get("/api/search?q=Discount Approval Policy", headers=_auth(served, "bob"))
    assert bob.json()[0]["page"]["id"] == DISCOUNT_PAGE
    carol = client.get("/api/search?q=Discount Approval Policy", headers=_auth(served, "carol"))
    assert DISCOUNT_PAGE not in carol.text


def test_source_text_is_inert_and_csp_is_strict(served: Served) -> None:
    client = _client(served)
    r = client.get("/search?q=<script>alert(1)</script>\"'", headers=_auth(served, "bob"))
    assert "<script>" not in r.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#x27;" in r.text
    csp = r.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src" not in csp
    assert r.headers["x-content-type-options"] == "nosniff"


# -- authentication -----------------------------------------------------------------------------
def test_no_credentials_no_access(served: Served) -> None:
    client = _client(served)
    for url in ("/api/pages", f"/api/pages/{DISCOUNT_PAGE}", "/api/search?q=discount"):
        r = client.get(url)
        assert r.status_code == 401 and r.json() == {"error": "authentication required"}
    r = client.get("/", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/login"
    for bad in ("Bearer nope", "Basic Ym9iOmJvYg==", "Bearer "):
        assert client.get("/api/pages", headers={"Authorization": bad}).status_code == 401


def test_unknown_principal_token_refused(served: Served) -> None:
    client = _client(served)
    assert client.get("/api/pages", headers=_auth(served, "stranger")).status_code == 401


def test_operator_token_sees_everything(served: Served) -> None:
    client = _client(served)
    r = client.get(f"/api/pages/{DISCOUNT_PAGE}", headers=_auth(served, "operator"))
    assert r.status_code == 200
    assert client.get("/api/me", headers=_auth(served, "operator")).json()["principal"] is None


def test_login_form_sets_a_session(served: Served) -> None:
    client = _client(served)
    bad = client.post("/login", data={"token": "wrong"})
    assert bad.status_code == 401 and SESSION_COOKIE not in bad.cookies
    ok = client.post("/login", data={"token": served.tokens["carol"]}, follow_redirects=False)
    assert ok.status_code == 303
    cookie = ok.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert client.get("/api/me").json()["principal"] == "carol"
    client.post("/logout")
    assert client.get("/api/me").status_code == 401


def test_proxy_header_only_from_allowed_addresses(served: Served) -> None:
    # TestClient's peer address is "testclient"; a real address goes through the same check
    allowed = _client(served, proxy=ProxyConfig(header="X-Forwarded-User", allow=["127.0.0.1"]))
    r = allowed.get("/api/me", headers={"X-Forwarded-User": "bob"})
    assert r.status_code == 401  # "testclient" is no allowed address
    srv = allowed.app.state.server
    assert srv.auth.proxy("127.0.0.1", {"x-forwarded-user": "bob"}).name == "bob"
    assert srv.auth.proxy("10.1.2.3", {"x-forwarded-user": "bob"}) is None
    assert srv.auth.proxy("127.0.0.1", {}) is None


def test_proxy_header_over_a_real_socket(served: Served) -> None:
    import threading
    import time

    import httpx
    import uvicorn

    app = build_app(served.wiki, AuthConfig(proxy=ProxyConfig(header="X-Forwarded-User",
                                                             allow=["127.0.0.0/8"])),
                    trust_from(FolioSettings()))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(200):
            if server.started:
                break
            time.sleep(0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
        base = f"http://127.0.0.1:{port}"
        assert httpx.get(f"{base}/api/me", headers={"X-Forwarded-User": "carol"}).json() == {
            "principal": "carol", "groups": ["contractors"]}
        assert httpx.get(f"{base}/api/me").status_code == 401
        assert httpx.get(f"{base}/api/me",
                         headers={"X-Forwarded-User": "mallory"}).status_code == 401
    finally:
        server.should_exit = True
        thread.join(10)


def test_anonymous_only_when_configured(served: Served) -> None:
    client = TestClient(build_app(served.wiki, AuthConfig(anonymous="guest"),
                                  trust_from(FolioSettings())))
    me = client.get("/api/me").json()
    assert me == {"principal": "guest", "groups": []}
    assert client.get(f"/api/pages/{DISCOUNT_PAGE}").status_code == 404


def test_token_file_stores_only_digests(served: Served) -> None:
    text = served.tokens_file.read_text()
    assert all(tok not in text for tok in served.tokens.values())


def test_config_errors_name_the_field(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no authentication configured"):
        load_auth_config(None)
    bad = tmp_path / "auth.yaml"
    bad.write_text("oidc: {issuer: x, audience: y, jwks_file: j.json, algorithms: [HS256]}\n")
    with pytest.raises(ConfigError, match=r"auth.yaml: field oidc.algorithms"):
        load_auth_config(bad)


def test_cli_serve_token_and_refusals(served: Served, tmp_path: Path) -> None:
    runner = CliRunner()
    tokens = tmp_path / "t.yaml"
    r = runner.invoke(cli_app, ["serve-token", "bob", "--tokens", str(tokens)])
    assert r.exit_code == 0 and r.stdout.startswith("folio_")
    assert r.stdout.strip() not in tokens.read_text()
    r = runner.invoke(cli_app, ["serve", "--wiki", str(served.wiki)])
    assert r.exit_code == 1 and "no authentication configured" in r.stderr
    r = runner.invoke(cli_app, ["mcp", "--wiki", str(served.wiki), "--tokens", str(tokens)],
                      env={"FOLIO_MCP_TOKEN": "not-a-token"})
    assert r.exit_code == 1 and "refused" in r.stderr


def test_loopback_server_answers_only_loopback_host_names(served: Served) -> None:
    from compiler.serve.cli import LOOPBACK_HOSTS

    app = build_app(served.wiki, AuthConfig(tokens_file=served.tokens_file),
                    trust_from(FolioSettings()), LOOPBACK_HOSTS)
    bob = _auth(served, "bob")
    ok = TestClient(app, base_url="http://127.0.0.1:8765").get("/api/me", headers=bob)
    assert ok.status_code == 200
    rebound = TestClient(app, base_url="http://evil.example.test").get("/api/me", headers=bob)
    assert rebound.status_code == 400


@pytest.mark.parametrize("published", [False, True])
def test_folio_serve_command_end_to_end(served: Served, tmp_path: Path, published: bool) -> None:
    """The real command: loopback bind, token file, a request as carol, a 401 without one;
    from the wiki folder, and from a published wiki (file:// store) synced into the cache."""
    import os
    import socket
    import subprocess
    import sys
    import time

    import httpx

    wiki = str(served.wiki)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
           "FOLIO_CACHE_DIR": str(tmp_path / "cache")}
    if published:
        store = tmp_path / "store"
        r = CliRunner().invoke(cli_app, ["publish", "--wiki", wiki, "--to", str(store), "-q"])
        assert r.exit_code == 0, r.output
        wiki = store.resolve().as_uri()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    repo = Path(__file__).resolve().parents[1]
    proc = subprocess.Popen(
        [sys.executable, "-c", "from pipelines.folio_cli import app; app()", "serve", "--wiki",
         wiki, "--tokens", str(served.tokens_file), "--port", str(port)],
        env=env, cwd=repo, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                httpx.get(f"{base}/login", timeout=1)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                time.sleep(0.1)
        me = httpx.get(f"{base}/api/me", headers=_auth(served, "carol"))
        assert me.json() == {"principal": "carol", "groups": ["contractors"]}
        assert httpx.get(f"{base}/api/me").status_code == 401
        hidden = httpx.get(f"{base}/api/pages/{DISCOUNT_PAGE}", headers=_auth(served, "carol"))
        assert hidden.status_code == 404
        bob = httpx.get(f"{base}/api/dbom/{DISCOUNT_PAGE}", headers=_auth(served, "bob"))
        assert bob.json()["status"] == "verified"
    finally:
        proc.terminate()
        proc.wait(10)


def test_the_leak_check_finds_what_it_looks_for(served: Served) -> None:
    """Guard for the leak tests above: bob's view of the discount policy, shown to the check
    for carol, is full of what carol may not see (in JSON and in HTML)."""
    client = _client(served)
    bob = _auth(served, "bob")
    carol_forbidden = forbidden_for(served.wiki, "carol")
    for url in (f"/api/pages/{DISCOUNT_PAGE}", f"/page/{DISCOUNT_PAGE}",
                f"/api/answers/{served.answers['bob']}", "/api/pages", "/"):
        found = leaks(client.get(url, headers=bob).text, carol_forbidden)
        assert DISCOUNT_PAGE in found or "Discount Approval Policy" in " ".join(found), url


def test_hostile_source_text_is_inert_in_every_view(acme_copy: Path, tmp_path: Path,
                                                    served: Served) -> None:
    """A public handbook page whose title, fields and body carry markup: every view shows it
    as text, in HTML and in a real page title, and no element comes from it."""
    from compiler.build import compile_wiki
    from conftest import TODAY

    hostile = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    (acme_copy / "handbook" / "hostile.md").write_text(
        "---\ntitle: Evil <b>Page</b> \"q\" 'a'\ntype: process\nupdated: 2026-10-20\n---\n\n"
        f"# Evil\n\nThe payload is {hostile} here.\n\nOwner: <a href=\"javascript:x\">me</a>\n")
    wiki = tmp_path / "wiki"
    assert compile_wiki(acme_copy, wiki, today=TODAY).rejected == 0
    client = TestClient(build_app(wiki, AuthConfig(tokens_file=served.tokens_file),
                                  trust_from(FolioSettings())))
    carol = _auth(served, "carol")
    pages = client.get("/api/pages", headers=carol).json()
    evil = next(p for p in pages if p["title"].startswith("Evil"))
    for url in (f"/page/{evil['id']}", "/", "/search?q=payload", "/ask?q=What+is+the+payload",
                f"/dbom/{evil['id']}", f"/history/{evil['id']}"):
        html = client.get(url, headers=carol).text
        for raw in ("<script", "<img", "<b>Page", '<a href="javascript', "onerror=alert(1)>"):
            assert raw not in html, (url, raw)
    page = client.get(f"/page/{evil['id']}", headers=carol).text
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    # a source's own URL is linked only when it is http(s) or mailto
    confluence = client.get("/page/policy/return-policy", headers=_auth(served, "bob")).text
    assert '<a href="https://acme.atlassian.net/' in confluence
    assert "Evil &lt;b&gt;Page&lt;/b&gt;" in page


def test_login_from_another_origin_refused(served: Served) -> None:
    client = _client(served)
    r = client.post("/login", data={"token": served.tokens["carol"]},
                    headers={"Origin": "https://evil.example.test"}, follow_redirects=False)
    assert r.status_code == 403 and SESSION_COOKIE not in r.cookies
    same = client.post("/login", data={"token": served.tokens["carol"]},
                       headers={"Origin": "http://testserver"}, follow_redirects=False)
    assert same.status_code == 303


@pytest.mark.parametrize("who", PRINCIPALS)
def test_permission_leak_detector_of_the_cli_finds_nothing_served(served: Served,
                                                                  who: str) -> None:
    """The CLI leak test's own detector (tests/test_permissions_leaks.py: hidden values, hidden
    titles and aliases, hidden page ids, and questions aimed at hidden claims) over every
    served URL, as a second opinion on the detector above."""
    from contextlib import closing

    from compiler.build import wiki_state
    from compiler.views import principal
    from test_permissions_leaks import secrets_for

    with closing(wiki_state(served.wiki)) as state:
        secrets = secrets_for(served.wiki, principal(state, who))
    assert secrets.page_ids and secrets.questions
    client = _client(served)
    headers = _auth(served, who)
    urls = _every_url(client, headers, served)
    for q in secrets.questions:
        urls += [(f"/ask?{urlencode({'q': q})}", q), (f"/api/query?{urlencode({'q': q})}", q),
                 (f"/api/search?{urlencode({'q': q})}", q),
                 (f"/api/ask?{urlencode({'q': q})}", q)]
    for url, echo in urls:
        r = client.get(url, headers=headers)
        text = r.text
        if echo:
            for form in (echo, urlencode({"q": echo}), html.escape(echo, quote=True)):
                text = text.replace(form, "")
        assert secrets.leaks(text) == [], (who, url)


def test_source_links_only_to_web_and_mail_urls() -> None:
    from compiler.serve.html import _source_title

    for bad in ("javascript:alert(1)", "data:text/html,<b>x</b>", "JaVaScRiPt:x", "//evil"):
        assert "<a " not in _source_title("T <b>", bad)
    assert _source_title("T", 'https://x.test/a"onmouseover=1').startswith(
        '<a href="https://x.test/a%22onmouseover=1"')


@pytest.mark.parametrize("command", ["serve", "mcp"])
def test_a_tampered_state_is_not_served(served: Served, tmp_path: Path, command: str) -> None:
    """Granting carol finance in the state database (not in the signed wiki) stops both
    servers before they serve anything (the answers work's state-vs-signature check)."""
    import shutil
    import sqlite3

    wiki = tmp_path / "wiki"
    shutil.copytree(served.wiki, wiki)
    db = sqlite3.connect(wiki / ".folio" / "state.db")
    db.execute("UPDATE principals SET groups_json='[\"finance\",\"staff\"]' WHERE name='carol'")
    db.commit()
    db.close()
    r = CliRunner().invoke(cli_app, [command, "--wiki", str(wiki), "--tokens",
                                     str(served.tokens_file)],
                           env={"FOLIO_MCP_TOKEN": served.tokens["carol"]})
    assert r.exit_code == 1, r.output
    assert "does not match the signed wiki" in " ".join(r.stderr.split())


def test_filed_answer_pages_are_served_to_who_may_read_them(served: Served, acme_copy: Path,
                                                            tmp_path: Path) -> None:
    """An answer filed back into the wiki (``ask --save``) is listed in the index and served as
    a page, to the principals who may see every claim it cites only: to the others it is a
    missing page."""
    wiki = tmp_path / "wiki"
    runner = CliRunner()
    # a corpus of its own: filed answers are kept beside the corpus (answer_pages.py)
    res = runner.invoke(cli_app, ["compile", str(acme_copy), "--out", str(wiki)])
    assert res.exit_code == 0, res.output
    for question, who in (("Who is the escalation manager for support?", "bob"),
                          ("Who must approve a discount above 35%?", "bob")):
        res = runner.invoke(cli_app, ["ask", question, "--wiki", str(wiki), "--save", "--as",
                                      who, "--json"])
        assert res.exit_code == 0, res.output
    client = TestClient(build_app(wiki, AuthConfig(tokens_file=served.tokens_file),
                                  trust_from(FolioSettings())))
    bob, carol = _auth(served, "bob"), _auth(served, "carol")
    listed = {p["id"]: p for p in client.get("/api/pages", headers=bob).json()
              if p["type"] == "answer"}
    assert len(listed) == 2
    window = next(i for i, p in listed.items() if "escalation" in p["title"].lower())
    html_page = client.get(f"/page/{window}", headers=bob)
    assert html_page.status_code == 200 and "Tom Becker" in html_page.text
    assert "<script" not in html_page.text.lower()
    api = client.get(f"/api/pages/{window}", headers=bob).json()
    assert api["type"] == "answer" and "Tom Becker" in api["text"]
    assert f'href="/page/{window}"' in client.get("/", headers=bob).text
    # carol may not see the discount policy: its filed answer does not exist for her
    discount = next(i for i in listed if i != window)
    carol_ids = {p["id"] for p in client.get("/api/pages", headers=carol).json()}
    assert window in carol_ids and discount not in carol_ids
    hidden = client.get(f"/page/{discount}", headers=carol)
    missing = client.get("/page/answer/no-such-answer", headers=carol)
    assert hidden.status_code == missing.status_code == 404
    assert hidden.content == missing.content
