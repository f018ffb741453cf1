"""The People, Chats and Access tokens pages in a real browser: Debian's headless Chromium driven
by Playwright against a real daemon and a real `agentmemd dashboard`, as test_dashboard_browser.py
(whose Chromium checks and flags these share: without Chromium they skip, or fail under
AGENTMEMD_REQUIRE_BROWSER). Each page is screenshotted; AGENTMEMD_SCREENSHOTS=DIR keeps them."""

# ruff: noqa: F811
from __future__ import annotations

import subprocess
import sys
from urllib.parse import quote

import pytest
from conftest import served_daemon
from playwright.sync_api import Page, expect
from test_dashboard import start_dashboard

# The browser, a page logged in to this module's world's dashboard, and screenshots: as there
# (pytest finds the imported fixtures by name, so the tests' `page` parameters are these).
from test_dashboard_browser import browser, page, screenshot  # noqa: F401
from test_dashboard_people import ingest

pytestmark = pytest.mark.browser  # the tier (pyproject.toml)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    with served_daemon() as d:
        private = ingest(
            d,
            "telegram:ana",
            "private",
            [
                ("Ana", "I'm allergic to peanuts, so no satay at the party please."),
                ("Me", "Noted, no satay. Still on for bouldering Saturday?"),
                ("Ana", "Yes! I climb three times a week, Ben is always late though."),
                ("Ana", "Can you bring the glaze samples to pottery on Thursday?"),
            ],
        )
        crew = ingest(
            d,
            "telegram:crew",
            "group",
            [("Ana", "Early slot at the gym?"), ("Ben", "Early works for me."), ("Me", "Booked for 7.")],
        )
        whatsapp = ingest(d, "whatsapp:ana", "private", [("Ana", "Pottery moved to 19:30.")], channel="whatsapp")
        d.call("conversation.observe", {"session": private["sessions"][0], "force": True})
        d.call("memory.add", {"content": "Replies stay short", "type": "procedural", "audience": "shared"})
        bridge = d.call("access.tokens.create", {"name": "signal-bridge", "namespaces": ["family"]})["secret"]
        d.call("access.tokens.create", {"name": "alice-mcp", "namespaces": ["alice", "default"]})
        cli = [sys.executable, "-m", "agentmemd.daemon.cli", "--socket", str(d.socket), "--token", bridge]
        subprocess.run([*cli, "chats"], check=True, capture_output=True, timeout=120)  # its "last did"
        people = {**crew["people"], **private["people"], "Ana@whatsapp": whatsapp["people"]["Ana"]}
        proc, base, token = start_dashboard(d.socket, d.root, d.root / "dashboard.log")
        try:
            yield d, base, token, people, tmp_path_factory.mktemp("shots")
        finally:
            proc.terminate()
            proc.wait(10)


def test_every_new_page_loads(page: Page, world):
    _, _, _, people, _ = world
    pages = {
        "people": ("/people", "#people"),
        "person": (f"/people/default/{people['Ana']}", "#impressions .impression"),
        "merge": (f"/people/default/{people['Ana@whatsapp']}/merge?into={people['Ana']}", "#preview"),
        "chats": ("/chats", "#chats"),
        "chat": (f"/chats/default/{quote('telegram:ana', safe='')}?q=peanuts", "#hearing"),
        "tokens": ("/tokens", "#tokens"),
    }
    for name, (path, landmark) in pages.items():
        response = page.goto(path)
        assert response.status == 200, (path, response.status)
        expect(page.locator(landmark)).to_be_visible()
        assert screenshot(page, world, name).stat().st_size > 10_000
    expect(page.locator("tr[data-token='signal-bridge'] .last-did")).to_contain_text("chats.list through cli")


def test_merge_from_a_persons_page(page: Page, world):
    d, _, _, people, _ = world
    source, into = people["Ana@whatsapp"], people["Ana"]
    page.goto(f"/people/default/{source}")
    page.select_option("#merge-form select[name=into]", into)
    page.click("#merge-form button[type=submit]")
    expect(page.locator("#preview")).to_contain_text("1 account")
    assert "requested" not in d.call("people.get", {"person": source})  # the preview changed nothing
    page.click("#confirm-merge")
    expect(page.locator("#merged")).to_be_visible()  # swapped in by htmx, the CSRF header sent
    expect(page.locator("#accounts")).to_contain_text("whatsapp")
    assert d.call("people.get", {"person": source})["requested"] == source


def test_create_a_token_then_revoke_it(page: Page, world):
    d, _, _, _, _ = world
    page.goto("/tokens")
    page.fill("#create-form input[name=name]", "garden-bot")
    page.fill("#create-form input[name=namespaces]", "garden")
    page.click("#create-form button[type=submit]")
    secret = page.locator("#secret").inner_text()
    assert secret.startswith("amt_")
    expect(page.locator("tr[data-token='garden-bot']")).to_contain_text("never used")
    page.on("dialog", lambda dialog: dialog.accept())  # htmx asks first (hx-confirm)
    page.click("tr[data-token='garden-bot'] button.revoke")
    expect(page.locator("#revoked")).to_contain_text("garden-bot")
    assert next(t for t in d.call("access.tokens.list")["tokens"] if t["name"] == "garden-bot")["revoked"]
