"""The dashboard in a real browser (issue 18): Debian's headless Chromium driven by Playwright,
against a real daemon and a real `agentmemd dashboard`. `make test` installs Chromium
(`make browser`) and requires it; run by hand without it, these tests skip and say so.

Each page is screenshotted; with AGENTMEMD_SCREENSHOTS=DIR the pictures are kept there
(`make screenshots` refreshes the docs', docs/screenshots/)."""

from __future__ import annotations

import os
import shutil
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from conftest import free_port, served_daemon
from test_dashboard import start_dashboard

CHROMIUM = Path(os.environ.get("AGENTMEMD_CHROMIUM", "/usr/bin/chromium"))
# Flags for a closed network and a root user: no sandbox, no background calls home, no first run.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

if not CHROMIUM.exists():
    if os.environ.get("AGENTMEMD_REQUIRE_BROWSER"):
        raise RuntimeError(f"no Chromium at {CHROMIUM}: `make browser` installs Debian's (apt-get install chromium)")
    pytest.skip(f"no Chromium at {CHROMIUM} (`make browser` installs it)", allow_module_level=True)

from playwright.sync_api import Browser, Page, expect, sync_playwright  # noqa: E402

pytestmark = pytest.mark.browser  # the tier (pyproject.toml)

TEA = [
    "The user drinks green tea every morning",
    "The user likes green tea with breakfast",
    "Green tea is the user's morning drink",
    "The user brews green tea before work",
    "The user prefers loose-leaf green tea",
]
CHAT = [
    ("user", "I just got back from Kyoto, the matcha there was incredible."),
    ("assistant", "Glad you enjoyed it. Want me to note a matcha shop for next time?"),
    ("user", "Yes: Ippodo, near the Imperial Palace. I'm going back in April."),
    ("assistant", "Noted: Ippodo in Kyoto, and your trip back in April."),
]
REPLIES = [
    "Noted. I'll remind you about Ippodo before April.",
    "Sure thing! 🎉🎉 Absolutely amazing, can't wait!!!",
    "Your trip is in April; Ippodo is near the Imperial Palace.",
]


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    with served_daemon() as d:
        add = lambda content, mtype: d.call("memory.add", {"content": content, "type": mtype})["id"]  # noqa: E731
        ids = {
            "tea": add("The user prefers green tea in the morning", "preference"),
            "city": add("The user lives in Lyon", "fact"),
            "diary": add("The user's diary is hidden in the blue box", "fact"),
            "voice": add("I speak plainly and briefly", "persona"),
        }
        d.call("memory.update", {"id": ids["city"], "content": "The user lives in Lyon, in the Croix-Rousse"})
        d.call("context.pack", {"query": "what does the user drink", "budget_tokens": 200})
        for text in TEA:  # enough alike for the consolidation to find a pattern
            add(text, "preference")
        for role, text in CHAT:
            d.call("conversation.append", {"session": "breakfast", "role": role, "content": text})
        d.call("conversation.observe", {"session": "breakfast"})
        d.call("conversation.context", {"session": "breakfast", "budget_tokens": 1500})
        for reply in REPLIES:  # scored into the session's EWMA, one point each on the plot
            d.call("persona.score", {"session": "breakfast", "response": reply})
        d.call("jobs.run", {"name": "consolidate"})
        d.call("identity.edge.add", {"relation": "values", "target": "plain words", "note": "no jargon"})
        d.call("identity.edge.add", {"relation": "is part of", "target": "kindness", "source": "plain words"})
        d.call("goal.add", {"text": "Ask how the interview went", "priority": "high", "trigger": "interview"})
        proc, base, token = start_dashboard(d.socket, d.root, d.root / "dashboard.log")
        try:
            yield d, base, token, ids, tmp_path_factory.mktemp("shots")
        finally:
            proc.terminate()
            proc.wait(10)


@pytest.fixture
def page(browser: Browser, world) -> Page:
    _, base, token, _, _ = world
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=base)
    pg = context.new_page()
    pg.goto(f"/?token={token}")
    yield pg
    context.close()


def screenshot(page: Page, world, name: str) -> Path:
    shots = world[4]
    path = shots / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    keep = os.environ.get("AGENTMEMD_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(keep) / path.name)
    return path


def test_every_page_loads(page: Page, world):
    d, _, _, ids, _ = world
    pack_id = d.call("packs.list", {"limit": 1})["packs"][0]["pack_id"]
    pages = {
        "overview": ("/", "#counts"),
        "memories": ("/memories", "#memories"),
        "memory": (f"/memories/default/{ids['tea']}", "#retention-chart"),
        "forget": (f"/memories/default/{ids['diary']}/forget", "#plan"),
        "packs": ("/packs?query=what+does+the+user+drink&budget_tokens=300", "#candidates"),
        "pack": (f"/packs/default/{pack_id}", "#pack-text"),
        "conversations": ("/conversations", "#sessions"),
        "conversation": ("/conversations/default/breakfast", "#stable-prefix"),
        "persona": ("/persona", "#syncscore-chart"),
        "consolidation": ("/consolidation", "#tree"),
        "identity": ("/identity/node?name=plain+words", "#node"),
    }
    for name, (path, landmark) in pages.items():
        response = page.goto(path)
        assert response.status == 200, (path, response.status)
        expect(page.locator(landmark)).to_be_visible()
        assert screenshot(page, world, name).stat().st_size > 10_000


def test_search_then_edit_makes_a_new_version(page: Page, world):
    d, _, _, ids, _ = world
    page.goto("/memories")
    page.fill("input[name=contains]", "tea in the morning")
    page.click("#filters button[type=submit]")
    expect(page.locator("#total")).to_have_text("2 memories")  # it, and the consolidated pattern that quotes it
    page.click(f"tr[data-id='{ids['tea']}'] a")
    expect(page.locator("#content")).to_have_text("The user prefers green tea in the morning")
    page.fill("#edit-form textarea[name=content]", "The user prefers jasmine tea in the morning")
    page.click("#edit-form button[type=submit]")
    expect(page.locator("#content")).to_have_text("The user prefers jasmine tea in the morning")
    new_id = page.url.rsplit("/", 1)[1]
    assert new_id != ids["tea"]
    record = d.call("memory.get", {"id": new_id})
    assert record["content"] == "The user prefers jasmine tea in the morning" and record["version"] == 2
    assert d.call("memory.get", {"id": ids["tea"]})["superseded_by"] == new_id
    expect(page.locator("#versions tr")).to_have_count(3)  # header + two versions


def test_forget_asks_then_removes_from_search(page: Page, world):
    d, _, _, ids, _ = world
    assert any(h["id"] == ids["diary"] for h in d.call("memory.search", {"query": "diary blue box"})["results"])
    page.goto(f"/memories/default/{ids['diary']}")
    page.click("#forget")
    expect(page.locator("#plan")).to_contain_text("1 search index entry")
    assert d.call("memory.get", {"id": ids["diary"]})  # asking changed nothing
    page.click("#confirm-forget")
    expect(page.locator("#forgotten")).to_be_visible()
    found = d.call("memory.search", {"query": "diary blue box", "include_archived": True})["results"]
    assert ids["diary"] not in {h["id"] for h in found}


def test_archive_and_restore(page: Page, world):
    d, _, _, ids, _ = world
    page.goto(f"/memories/default/{ids['voice']}")
    page.click("#archive")
    expect(page.locator("#tier")).to_have_text("archived")
    assert d.call("memory.get", {"id": ids["voice"]})["tier"] == "archived"
    page.click("#restore")
    expect(page.locator("#tier")).not_to_have_text("archived")
    assert d.call("memory.get", {"id": ids["voice"]})["tier"] != "archived"


def test_a_pack_explanation_opens(page: Page, world):
    page.goto("/packs")
    page.fill("#pack-form input[name=query]", "where does the user live")
    page.fill("#pack-form input[name=budget_tokens]", "120")
    page.click("#pack-form button[type=submit]")
    expect(page.locator("#candidates")).to_be_visible()
    assert page.locator("#candidates tr.chosen").count() >= 1
    expect(page.locator("#candidates")).to_contain_text("Croix-Rousse")
    page.click("#logged a >> nth=0")
    expect(page.locator("h1")).to_have_text("Why this pack holds what it holds")


def test_a_missing_token_gets_401(browser: Browser, world):
    _, base, _, _, _ = world
    context = browser.new_context(base_url=base)
    response = context.new_page().goto("/memories")
    assert response.status == 401
    context.close()


class _Attacker(BaseHTTPRequestHandler):
    """A page on another origin that posts a forget to the dashboard as soon as it loads."""

    target = ""

    def do_GET(self):
        body = (
            f"<form id=f method=post action='{self.target}'><input name=confirm value=yes></form>"
            "<script>document.getElementById('f').submit()</script>"
        ).encode()
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_a_forged_cross_site_post_is_refused(page: Page, world):
    d, base, _, ids, _ = world
    _Attacker.target = f"{base}/memories/default/{ids['voice']}/forget"
    port = free_port()
    server = HTTPServer(("127.0.0.1", port), _Attacker)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        # The browser holds a dashboard session (the fixture opened the token link) and visits the attacker.
        with page.expect_response(lambda r: r.url == _Attacker.target) as answer:
            page.goto(f"http://localhost:{port}/")
        assert answer.value.status in (401, 403)
    finally:
        server.shutdown()
    assert d.call("memory.get", {"id": ids["voice"]})["content"] == "I speak plainly and briefly"


def test_confirm_a_hard_rule_proposal(page: Page, world):
    d, _, _, _, _ = world
    proposal = d.call("persona.rules.propose", {"rule": "Never promise a deadline.", "action": "add"})
    page.goto("/persona")
    row = page.locator(f"tr[data-proposal='{proposal['id']}']")
    expect(row).to_contain_text("Never promise a deadline.")
    row.locator("button.confirm").click()
    expect(page.locator("#rules ul")).to_contain_text("Never promise a deadline.")
    expect(page.locator(f"tr[data-proposal='{proposal['id']}']")).to_have_count(0)
    rules = d.call("persona.rules.list", {"status": "all"})
    assert "Never promise a deadline." in [r["rule"] for r in rules["hard_rules"]]
    assert [p["status"] for p in rules["proposals"] if p["id"] == proposal["id"]] == ["confirmed"]


def test_the_syncscore_plot_has_a_point_per_scored_reply(page: Page, world):
    d, _, _, _, _ = world
    scored = [s for s in d.call("persona.scores", {"session": "breakfast"})["scores"]]
    assert len(scored) >= len(REPLIES)
    page.goto("/persona?session=breakfast")
    points = page.locator("#syncscore-chart circle.point[data-series=ewma]")
    expect(points).to_have_count(len(scored))
    expect(page.locator("#syncscore-chart line.rule")).to_have_count(3)  # reinforce, anchor, rebase thresholds
    titles = points.evaluate_all("nodes => nodes.map(n => n.textContent)")
    assert [float(t.rsplit(": ", 1)[1]) for t in titles] == [pytest.approx(s["ewma"], abs=5e-4) for s in scored]


def test_the_conversation_shows_the_context_as_received(page: Page, world):
    d, _, _, _, _ = world
    built = d.call("conversation.contexts", {"session": "breakfast"})["contexts"][0]["context"]
    page.goto("/conversations/default/breakfast")
    expect(page.locator("#stable-prefix pre")).to_have_text(built["system"])
    expect(page.locator("#messages .message")).to_have_count(len(built["messages"]))
    expect(page.locator("#observations")).to_contain_text("Ippodo")
    expect(page.locator("#turns")).to_contain_text("Kyoto")


def test_a_refused_edit_shows_its_error_and_changes_nothing(page: Page, world):
    d, _, _, ids, _ = world
    page.goto(f"/memories/default/{ids['voice']}")
    page.fill("#edit-form input[name=priority]", "very high")
    page.click("#edit-form button[type=submit]")
    expect(page.locator("#error")).to_contain_text("priority")  # swapped in by htmx although it is a 400
    assert d.call("memory.get", {"id": ids["voice"]})["version"] == 1
