"""The web view in a real browser: Debian's chromium driven by Playwright (never a downloaded
browser), against ``folio serve``'s app on a loopback port. Two principals sign in with their
tokens, browse, search, open a page, its DBOM status and an answer's audit trail; every HTML
page they reach is checked for anything the other's rights hide. Screenshots go to tmp_path."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from playwright.sync_api import Browser, Page, sync_playwright

from compiler.provenance.verify import trust_from
from compiler.serve.app import build_app
from compiler.serve.auth import AuthConfig
from compiler.settings import FolioSettings
from serve_wiki import DISCOUNT_PAGE, Served, forbidden_for, leaks, served  # noqa: F401

CHROMIUM = "/usr/bin/chromium"
OPENS = {"bob": ("Return Policy", "policy/return-policy"),
         "carol": ("Returns Handling", "process/returns-handling")}
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def base_url(served: Served) -> Iterator[str]:  # noqa: F811
    app = build_app(served.wiki, AuthConfig(tokens_file=served.tokens_file),
                    trust_from(FolioSettings()))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(400):
        if server.started:
            break
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert Path(CHROMIUM).exists(), "apt-get install -y chromium"
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


class Tour:
    """One principal's session: every page visited is screenshotted and leak-checked."""

    def __init__(self, page: Page, who: str, shots: Path, forbidden: set[str]) -> None:
        self.page, self.who, self.shots, self.forbidden = page, who, shots, forbidden
        self.saved: list[str] = []
        self.violations: list[str] = []
        page.on("console", lambda m: self.violations.append(f"console: {m.text}")
                if "Content Security Policy" in m.text else None)

    def check(self, name: str, echo: str = "") -> str:
        html = self.page.content()
        path = self.shots / f"{self.who}-{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        self.saved.append(path.name)
        text = html.replace(echo, "") if echo else html
        assert leaks(text, self.forbidden) == [], (self.who, name, self.page.url)
        return html


def _sign_in(page: Page, base: str, token: str) -> None:
    page.goto(f"{base}/")
    assert page.url.endswith("/login")
    page.fill("input[name=token]", token)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/")


def _tour(browser: Browser, base: str, served: Served, who: str, shots: Path) -> Tour:  # noqa: F811
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    tour = Tour(page, who, shots, forbidden_for(served.wiki, who))
    page.goto(f"{base}/login")
    page.fill("input[name=token]", "wrong-token")
    page.click("button[type=submit]")
    assert "not accepted" in page.content()
    tour.check("login-refused")
    _sign_in(page, base, served.tokens[who])
    assert f"signed in as {who}" in page.inner_text("header")
    tour.check("index")

    page.fill("input[name=q]", "discount")
    page.press("input[name=q]", "Enter")
    page.wait_for_url("**/search?q=discount")
    tour.check("search", echo="discount")
    page.click("text=Answer it as a question")
    page.wait_for_url("**/ask?q=discount")
    tour.check("ask", echo="discount")

    title, pid = OPENS[who]
    page.goto(f"{base}/")
    page.click(f"a:text-is('{title}')")
    page.wait_for_url(f"**/page/{pid}")
    assert page.inner_text("h1") == title
    tour.check("open-page")
    page.click("text=DBOM and verification")
    assert page.inner_text("#dbom-status") == "verified"
    tour.check("dbom")

    page.goto(f"{base}/page/{DISCOUNT_PAGE}")
    tour.check("discount-policy")
    page.goto(f"{base}/page/policy/no-such-policy")
    tour.check("missing-page")

    page.goto(f"{base}/answers")
    tour.check("answers")
    page.click(f"a[href='/answers/{served.answers[who]}']")
    page.wait_for_url(f"**/answers/{served.answers[who]}")
    assert "unchanged since answered" in page.inner_text("#audit-verdict")
    assert page.locator("table tr").count() >= 2  # the trail has at least one claim
    tour.check("audit")
    other = served.answers["carol" if who == "bob" else "bob"]
    page.goto(f"{base}/answers/{other}")
    tour.check("other-audit")
    assert tour.violations == []
    ctx.close()
    return tour


def test_two_principals_in_a_browser(browser: Browser, base_url: str, served: Served,  # noqa: F811
                                     tmp_path: Path) -> None:
    bob = _tour(browser, base_url, served, "bob", tmp_path)
    carol = _tour(browser, base_url, served, "carol", tmp_path)
    names = sorted(bob.saved + carol.saved)
    assert len(names) == 22 and all((tmp_path / n).stat().st_size > 1000 for n in names)
    print("screenshots:", tmp_path, ", ".join(names))


def test_bob_sees_discount_dbom_verified_carol_gets_not_found(
        browser: Browser, base_url: str, served: Served) -> None:  # noqa: F811
    ctx = browser.new_context()
    page = ctx.new_page()
    _sign_in(page, base_url, served.tokens["bob"])
    page.goto(f"{base_url}/page/{DISCOUNT_PAGE}")
    assert page.inner_text("h1") == "Discount Approval Policy"
    assert "20%" in page.inner_text("main")
    page.click("text=DBOM and verification")
    assert page.inner_text("#dbom-status") == "verified"
    page.goto(f"{base_url}/page/process/support-escalation")
    assert page.locator(f"a[href='/page/{DISCOUNT_PAGE}']").count() >= 1
    ctx.close()

    ctx = browser.new_context()
    page = ctx.new_page()
    _sign_in(page, base_url, served.tokens["carol"])
    hidden = page.goto(f"{base_url}/dbom/{DISCOUNT_PAGE}")
    hidden_html = page.content()
    missing = page.goto(f"{base_url}/dbom/policy/no-such-policy")
    assert hidden.status == missing.status == 404
    assert hidden_html == page.content()
    page.goto(f"{base_url}/page/process/support-escalation")
    assert page.locator(f"a[href='/page/{DISCOUNT_PAGE}']").count() == 0
    page.goto(f"{base_url}/")
    assert page.locator(f"a[href='/page/{DISCOUNT_PAGE}']").count() == 0
    ctx.close()


def test_no_script_runs_and_no_inline_script_is_served(
        browser: Browser, base_url: str, served: Served) -> None:  # noqa: F811
    ctx = browser.new_context()
    page = ctx.new_page()
    _sign_in(page, base_url, served.tokens["bob"])
    fired: list[str] = []
    page.on("dialog", lambda d: (fired.append(d.message), d.dismiss()))
    page.goto(f"{base_url}/search?q=%3Cscript%3Ealert(1)%3C/script%3E%3Cimg%20src=x%20"
              "onerror=alert(2)%3E")
    assert fired == []
    assert page.locator("script").count() == 0 and page.locator("img").count() == 0
    ctx.close()
