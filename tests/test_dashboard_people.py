"""The dashboard's People, Chats and Access tokens pages over HTTP: a real daemon, a real
`agentmemd dashboard`, an HTTP client (as test_dashboard.py). Every page answers; a merge and a
token's create and revoke need the CSRF token and change nothing without it; a token's last use
names the door and the method; a request acting with a scoped token sees its namespaces alone.
What only a browser shows: test_dashboard_people_browser.py."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from urllib.parse import quote

import httpx2
import pytest
from conftest import served_daemon, wait_for
from test_dashboard import session, start_dashboard

from agentmemd.daemon.dashboard.chat_pages import hearing_in_words
from agentmemd.daemon.services.access import USE_WRITE_SECONDS, AccessService, Scope
from agentmemd.daemon.socket.client import Client, RpcCallError
from agentmemd.memory.core.clock import ManualClock, parse_time
from agentmemd.memory.core.models import TokenCreateParams
from agentmemd.memory.store.database import Store

pytestmark = pytest.mark.doors  # the tier (pyproject.toml)

T0 = 1710234940  # 2024-03-12 09:15:40 UTC


def ingest(d, chat: str, kind: str, lines: list[tuple[str, str]], *, channel: str = "telegram", **extra):
    """One chat's messages through channels.ingest: (sender, text) a minute apart; `Me` is the user."""
    messages = [
        {"sender": who, "sender_id": f"id-{who}", "ts": T0 + 60 * i, "text": text, "line": i + 1}
        for i, (who, text) in enumerate(lines)
    ]
    params = {"channel": channel, "chat_id": chat, "title": chat.split(":")[1].title(), "kind": kind}
    return d.call("channels.ingest", {**params, "messages": messages, "owner": "id-Me", **extra})


def path(chat: str) -> str:
    return quote(chat, safe="")


@pytest.fixture(scope="module")
def world():
    with served_daemon() as d:
        private = ingest(
            d,
            "telegram:ana",
            "private",
            [
                ("Ana", "I'm allergic to peanuts, so no satay at the party please."),
                ("Me", "Noted, no satay."),
                ("Ana", "And I love bouldering, three times a week!"),
            ],
        )
        crew = ingest(d, "telegram:crew", "group", [("Ana", "Early slot at the gym?"), ("Ben", "Early works for me.")])
        ingest(d, "whatsapp:ana", "private", [("Ana", "Pottery on Thursday?")], channel="whatsapp")
        # Bo on two channels: the pair the merge test joins.
        bo_telegram = ingest(d, "telegram:bo", "private", [("Bo", "Bo here, on Telegram.")])["people"]["Bo"]
        bo_whatsapp = ingest(d, "whatsapp:bo", "private", [("Bo", "Bo again.")], channel="whatsapp")["people"]["Bo"]
        d.call("conversation.observe", {"session": private["sessions"][0], "force": True})
        d.call("memory.add", {"content": "The user's passport number ends in 4471", "type": "fact"})
        d.call("memory.add", {"content": "Replies stay short", "type": "procedural", "audience": "shared"})
        bridge = d.call("access.tokens.create", {"name": "family-bridge", "namespaces": ["family"]})
        with Client(d.socket, token=bridge["secret"]) as scoped:
            family = ingest(scoped, "signal:family", "group", [("Mum", "Grandma turns 90 on the 14th of June")])
        people = {**crew["people"], **private["people"], **family["people"]}
        people.update({"Bo@telegram": bo_telegram, "Bo@whatsapp": bo_whatsapp})
        proc, base, token = start_dashboard(d.socket, d.root, d.root / "dashboard.log")
        try:
            yield d, base, token, people, bridge["secret"]
        finally:
            proc.terminate()
            proc.wait(10)


def test_every_new_page_answers(world):
    d, base, token, people, _ = world
    client, _ = session(base, token)
    ana = people["Ana"]
    for page in (
        "/people",
        "/people?sort=messages",
        "/people?sort=last_seen",
        f"/people/default/{ana}",
        "/people/default/user",
        f"/people/default/{ana}/merge?into={people['Ben']}",
        "/chats",
        "/chats?sort=last",
        f"/chats/default/{path('telegram:ana')}",
        f"/chats/default/{path('telegram:ana')}?q=peanuts",
        f"/chats/default/{path('telegram:crew')}",
        "/tokens",
    ):
        answer = client.get(page)
        assert answer.status_code == 200, (page, answer.text[:500])
        assert "That did not work" not in answer.text
    for nav in ('href="/people"', 'href="/chats"', 'href="/tokens"'):
        assert nav in answer.text


def test_the_people_list_shows_accounts_per_channel_messages_and_last_seen(world):
    d, base, token, people, _ = world
    client, _ = session(base, token)
    page = client.get("/people").text
    row = re.search(rf'<tr data-person="{people["Ana"]}">(.*?)</tr>', page, re.S).group(1)
    # One person per channel account until merged: this is Ana on Telegram (a private chat and a group).
    assert "telegram" in row and "id-Ana" in row and ">3<" in row and "2024-03-12" in row
    assert '<tr data-person="user">' in page and 'data-person="pe_' in page
    assert "Mum" not in page  # another namespace's


def test_a_person_page_shows_accounts_chats_and_impressions_by_audience(world):
    d, base, token, people, _ = world
    client, _ = session(base, token)
    page = client.get(f"/people/default/{people['Ana']}").text
    assert 'id="accounts"' in page and "id-Ana" in page
    assert (
        f'href="/chats/default/{path("telegram:ana")}"' in page
        and f'href="/chats/default/{path("telegram:crew")}"' in page
    )
    impression = re.search(r'data-audience="private:telegram:ana">(.*?)</div>', page, re.S).group(1)
    assert "peanuts" in impression and "in the private chat" in impression
    assert 'id="activity-chart"' in page and page.count('class="bar"') == 2  # her two chats


def test_a_merge_needs_csrf_previews_then_moves_accounts_and_messages(world):
    d, base, token, people, _ = world
    source, into = people["Bo@whatsapp"], people["Bo@telegram"]
    client, csrf = session(base, token)
    preview = client.get(f"/people/default/{source}/merge?into={into}")
    assert preview.status_code == 200 and 'id="preview"' in preview.text
    assert "1 account" in preview.text and "id-Bo" in preview.text and "1 message" in preview.text
    assert "requested" not in d.call("people.get", {"person": source})  # a preview changes nothing

    target = f"/people/default/{source}/merge"
    form = {"into": into, "confirm": "yes"}
    no_csrf = client.post(target, data=form, headers={"Origin": base})
    assert no_csrf.status_code == 403 and "CSRF" in no_csrf.text
    forged = client.post(target, data={**form, "csrf_token": csrf}, headers={"Origin": "http://evil.example"})
    assert forged.status_code == 403
    unconfirmed = client.post(target, data={"into": into, "csrf_token": csrf}, headers={"Origin": base})
    assert unconfirmed.status_code == 200 and 'id="confirm-merge"' in unconfirmed.text
    assert "requested" not in d.call("people.get", {"person": source})
    assert d.call("people.get", {"person": into})["messages"] == 1

    done = client.post(target, data={**form, "csrf_token": csrf}, headers={"Origin": base})
    assert done.status_code == 200 and str(done.url).endswith(f"/people/default/{into}?merged={source}&moved=1")
    assert 'id="merged"' in done.text
    merged = d.call("people.get", {"person": into})
    assert merged["messages"] == 2 and {a["channel"] for a in merged["accounts"]} == {"telegram", "whatsapp"}
    assert d.call("people.get", {"person": source})["requested"] == source
    again = client.post(target, data={**form, "csrf_token": csrf}, headers={"Origin": base})
    assert again.status_code == 400 and "already merged" in again.text  # the daemon's words, on the page


def test_the_user_cannot_be_merged_away_and_the_page_says_so(world):
    d, base, token, people, _ = world
    client, csrf = session(base, token)
    page = client.get("/people/default/user").text
    assert 'id="merge-form"' not in page and "merge that person into the user" in page
    refused = client.post(
        "/people/default/user/merge",
        data={"into": people["Ana"], "confirm": "yes", "csrf_token": csrf},
        headers={"Origin": base},
    )
    assert refused.status_code == 400 and "the user cannot be merged" in refused.text
    assert "requested" not in d.call("people.get", {"person": "user"})


def test_a_merge_the_daemon_would_refuse_is_never_offered(world):
    """The preview offered "Merge them" for a person into themselves and for the user into someone
    (typed into the address bar, or from an old link): the daemon refused only after the click."""
    d, base, token, people, _ = world
    client, _ = session(base, token)
    ana = people["Ana"]
    for source, into, said in [
        (ana, ana, "cannot be merged into themselves"),
        ("user", ana, "the user cannot be merged"),
    ]:
        preview = client.get(f"/people/default/{source}/merge?into={into}")
        assert preview.status_code == 400 and said in preview.text, preview.text[:300]
        assert 'id="confirm-merge"' not in preview.text and 'id="preview"' not in preview.text
    assert "requested" not in d.call("people.get", {"person": ana})
    ben = people["Ben"]
    said = d.call("people.get", {"person": ben})["messages"]
    dry = d.call("people.merge", {"person": ben, "into": ana, "dry_run": True})
    assert dry == {"merged": ben, "into": ana, "turns_moved": said, "dry_run": True} and said > 0
    assert "requested" not in d.call("people.get", {"person": ben})  # nothing changed
    assert d.call("people.get", {"person": ben})["messages"] == said


def test_a_chat_page_finds_its_messages_links_its_sessions_and_says_who_may_hear_what(world):
    d, base, token, people, _ = world
    client, _ = session(base, token)
    page = client.get(f"/chats/default/{path('telegram:ana')}?q=peanuts").text
    hits = re.search(r'<table id="hits">(.*?)</table>', page, re.S).group(1)
    assert "allergic to peanuts" in hits and "Pottery" not in hits
    session_name = d.call("chats.get", {"chat": "telegram:ana"})["sessions"][0]["session"]
    assert f'href="/conversations/default/{session_name}"' in page
    assert client.get(f"/conversations/default/{session_name}").status_code == 200
    # Who may hear what: a private chat hears shared memories and its own, not the user's own.
    assert "A private chat: its context may include shared memories" in page
    assert "heard in this private chat only" in page
    rows = dict(re.findall(r'<tr data-audience="([^"]+)">.*?<td class="(yes|no)">', page, re.S))
    assert rows["shared"] == "yes" and rows["user"] == "no" and rows["private:telegram:ana"] == "yes"
    assert rows.get("group:telegram:crew", "no") == "no"
    group = html.unescape(client.get(f"/chats/default/{path('telegram:crew')}").text)
    assert "heard in this group and in the user's own conversations" in group
    elsewhere = client.get(f"/chats/default/{path('telegram:ana')}?q=pottery").text  # said in WhatsApp's chat
    assert "No message of this chat has those words." in elsewhere


def test_bad_input_on_the_new_pages_is_shown_and_changes_nothing(world):
    d, base, token, people, _ = world
    client, csrf = session(base, token)
    assert client.get("/people/default/pe_nobody").status_code == 404
    missing = client.get(f"/chats/default/{path('telegram:nobody')}")
    assert missing.status_code == 404 and "no chat" in missing.text
    blank = client.get(f"/chats/default/{path('telegram:ana')}?q=%20%20")
    assert blank.status_code == 400 and "query" in blank.text and 'id="hearing"' in blank.text
    headers = {"Origin": base}
    before = d.call("access.tokens.list")["tokens"]
    bad_name = client.post(
        "/tokens", data={"name": "no spaces allowed", "namespaces": "x", "csrf_token": csrf}, headers=headers
    )
    assert bad_name.status_code == 400 and "name" in bad_name.text and 'value="no spaces allowed"' in bad_name.text
    no_namespace = client.post(
        "/tokens", data={"name": "empty", "namespaces": " ", "csrf_token": csrf}, headers=headers
    )
    assert no_namespace.status_code == 400 and "namespaces" in no_namespace.text
    taken = client.post(
        "/tokens", data={"name": "family-bridge", "namespaces": "x", "csrf_token": csrf}, headers=headers
    )
    assert taken.status_code == 409 and "already exists" in taken.text
    assert d.call("access.tokens.list")["tokens"] == before


def test_a_token_is_created_shown_once_and_revoked_only_with_csrf(world):
    d, base, token, _, _ = world
    client, csrf = session(base, token)
    form = {"name": "alpha-door", "namespaces": "alpha, beta"}
    assert client.post("/tokens", data=form, headers={"Origin": base}).status_code == 403
    assert "alpha-door" not in [t["name"] for t in d.call("access.tokens.list")["tokens"]]
    created = client.post("/tokens", data={**form, "csrf_token": csrf}, headers={"Origin": base})
    assert created.status_code == 200 and created.headers["cache-control"] == "no-store"
    assert 'hx-history="false"' in created.text  # nor kept in htmx's history cache (localStorage)
    secret = re.search(r'id="secret">(amt_[^<]+)<', created.text).group(1)
    with Client(d.socket, token=secret) as scoped:
        assert scoped.scope["namespaces"] == ["alpha", "beta"]
    listed = client.get("/tokens").text
    assert secret not in listed and 'data-token="alpha-door"' in listed  # shown that once only

    revoke = "/tokens/alpha-door/revoke"
    assert client.post(revoke, headers={"Origin": base}).status_code == 403
    with Client(d.socket, token=secret) as still:
        assert still.call("health")["status"] == "ok"
    done = client.post(revoke, data={"csrf_token": csrf}, headers={"Origin": base})
    assert done.status_code == 200 and 'id="revoked"' in done.text
    with pytest.raises(RpcCallError):
        Client(d.socket, token=secret)
    row = re.search(r'<tr data-token="alpha-door" class="revoked">(.*?)</tr>', done.text, re.S).group(1)
    assert "revoked 20" in row and "Revoke</button>" not in row


def test_a_tokens_last_use_shows_the_door_and_the_method(world):
    d, base, token, _, bridge = world
    client, _ = session(base, token)
    command = [sys.executable, "-m", "agentmemd.daemon.cli", "--socket", str(d.socket), "--token", bridge]
    out = subprocess.run([*command, "messages", "grandma"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "Grandma turns 90" in out.stdout
    row = re.search(r'<tr data-token="family-bridge" class="">(.*?)</tr>', client.get("/tokens").text, re.S).group(1)
    last = re.search(r'class="small last-did">(.*?)</td>', row, re.S).group(1)
    assert "<code>conversation.search</code> through <strong>cli</strong>" in last
    listed = next(t for t in d.call("access.tokens.list")["tokens"] if t["name"] == "family-bridge")
    assert listed["last_door"] == "cli" and listed["last_method"] == "conversation.search"
    shown = subprocess.run([*command[:5], "token", "list"], capture_output=True, text=True, timeout=120).stdout
    assert re.search(r"^family-bridge .* last conversation\.search via cli 20\d\d-", shown, re.M), shown
    assert "<em>every namespace</em>" not in row and "not the methods that act on every namespace" in row


def test_a_scoped_tokens_pages_hold_its_namespaces_alone(world):
    d, base, _, people, bridge = world
    scoped = httpx2.Client(base_url=base, timeout=30, headers={"Authorization": f"Bearer {bridge}"})
    listed = scoped.get("/people")
    assert listed.status_code == 200 and "Mum" in listed.text and "namespace family" in listed.text
    assert "Ana" not in listed.text and 'id="acting"' in listed.text
    mum = scoped.get(f"/people/family/{people['Mum']}")
    assert mum.status_code == 200 and "Mum" in mum.text
    for elsewhere in ("Ana", "Ben", "Bo@telegram"):  # the merge choices are the family's people alone
        assert people[elsewhere] not in mum.text
    chats = scoped.get("/chats")
    assert chats.status_code == 200 and "signal:family" in chats.text and "telegram:ana" not in chats.text
    chat = scoped.get(f"/chats/family/{path('signal:family')}?q=grandma")
    assert chat.status_code == 200 and "Grandma turns 90" in chat.text
    assert "peanuts" not in chat.text and "passport" not in chat.text
    for other in (
        f"/people/default/{people['Ana']}",
        "/people?namespace=default",
        f"/chats/default/{path('telegram:ana')}",
        f"/chats/default/{path('telegram:ana')}?q=peanuts",
        "/tokens",
    ):
        refused = scoped.get(other)
        assert refused.status_code == 403, other
        assert "peanuts" not in refused.text and "Ana" not in refused.text
    merge = scoped.post(f"/people/default/{people['Ana']}/merge", data={"into": "user", "confirm": "yes"})
    assert merge.status_code == 403 and "requested" not in d.call("people.get", {"person": people["Ana"]})
    bogus = httpx2.get(base + "/people", headers={"Authorization": "Bearer amt_not-a-token"})
    assert bogus.status_code == 401 and "Mum" not in bogus.text
    # Its overview (the jobs are the owner's), its pack form (its own namespace), another namespace's list.
    overview = scoped.get("/")
    assert overview.status_code == 200 and 'href="/memories?namespace=family"' in overview.text
    assert "acts on every namespace" in overview.text  # the jobs card says why it is empty
    assert 'name="namespace" size="12" value="family"' in scoped.get("/packs").text
    # (the family's message becomes searchable once the episode worker has indexed it: a loaded machine is slower)
    wait_for(lambda: "Grandma turns 90" in scoped.get("/packs?query=grandma").text, timeout=60)
    assert scoped.get("/memories?namespace=default").status_code == 403


def test_a_bearer_access_token_leaves_the_owners_calls_the_owners(world):
    """A request with an access token (a good one, then a made-up one) is checked on a connection
    of its own: the owner's calls after it still act as the owner, and the token's last use is its own."""
    d, base, token, _, bridge = world
    owner = httpx2.Client(base_url=base, timeout=30, headers={"Authorization": f"Bearer {token}"})
    assert owner.get("/tokens").status_code == 200
    assert httpx2.get(base + "/memories", headers={"Authorization": f"Bearer {bridge}"}).status_code == 200
    assert httpx2.get(base + "/", headers={"Authorization": "Bearer amt_made-up"}).status_code == 401
    used = next(t for t in d.call("access.tokens.list")["tokens"] if t["name"] == "family-bridge")["last_used"]
    for page in ("/tokens", "/", "/memories?namespace=default", "/tokens", "/", "/people"):
        answered = owner.get(page)
        assert answered.status_code == 200, (page, answered.text[-500:])
    assert "passport" in owner.get("/memories?namespace=default").text  # the owner's namespace, not the token's
    after = next(t for t in d.call("access.tokens.list")["tokens"] if t["name"] == "family-bridge")["last_used"]
    assert after == used


def test_what_a_chats_audience_means_is_said_as_the_daemon_decided():
    def words(audience: str, channel: str, reaches_user: bool, heard: tuple[str, ...] = ()) -> str:
        hears = [{"audience": a, "memories": 1, "heard": True} for a in heard]
        found = {"audience": audience, "chat": {"channel": channel}, "reaches_user": reaches_user, "hears": hears}
        said = hearing_in_words(found)
        return said["hears"] + " | " + said["heard_by"]

    private = words("private:whatsapp:ana", "whatsapp", False)
    assert "private chat" in private and "not the user's own memories" in private
    assert "private_reaches_user does not name whatsapp" in private
    assert "private_reaches_user names whatsapp" in words("private:whatsapp:ana", "whatsapp", True)
    assert "heard in this group and in the user's own conversations" in words("group:slack:C1", "slack", True)
    assert "group_reaches_user does not name slack" in words("group:slack:C1", "slack", False)
    own = words("user", "chatgpt", True, ("user", "shared", "group:slack:C1", "private:whatsapp:ana"))
    assert "the user's own memories and shared ones" in own and "the 2 chats marked below" in own
    assert "never in a chat with anyone else" in own


# ---- the last-use notes themselves (the service, in process) --------------------------------------


def test_uses_are_noted_every_call_and_written_at_most_once_a_minute(tmp_path, monkeypatch):
    store = Store(tmp_path / "a.db", dim=4, model="test")
    clock = ManualClock(parse_time("2026-03-01T09:00:00Z"))
    access = AccessService(store, clock)
    access.create(TokenCreateParams(name="door", namespaces=["alice"]))
    scope = Scope("door", ("alice",))
    seconds = iter([1000.0, 1010.0, 1000.0 + USE_WRITE_SECONDS])
    monkeypatch.setattr("agentmemd.daemon.services.access.time.monotonic", lambda: next(seconds))
    assert access.note_use(scope, "mcp", "memory.search") is True  # the first: write it now
    assert access.write_uses() == 1
    clock.advance(1)
    assert access.note_use(scope, "proxy", "context.pack") is False  # ten seconds later: in memory only
    written = store.conn.execute("SELECT last_door, last_method FROM access_tokens").fetchone()
    assert written == ("mcp", "memory.search")
    shown = access.list()["tokens"][0]  # the page shows the newest all the same
    assert (shown["last_door"], shown["last_method"], shown["last_used"]) == (
        "proxy",
        "context.pack",
        "2026-03-01T10:00:00.000000Z",
    )
    assert access.note_use(scope, "webhooks", "channels.ingest") is True  # a minute on: due again
    assert access.write_uses() == 1 and access.write_uses() == 0
    assert store.conn.execute("SELECT last_door, last_method FROM access_tokens").fetchone() == (
        "webhooks",
        "channels.ingest",
    )
    store.close()


def test_a_use_noted_but_not_yet_written_is_written_at_shutdown(spawn):
    d = spawn()
    secret = d.call("access.tokens.create", {"name": "door", "namespaces": ["alice"]})["secret"]
    with Client(d.socket, token=secret) as door:
        door.call("memory.search", {"query": "coffee"})  # the token's first use: written at once
        door.call("stats", {})  # a second within the minute: noted in memory only
    assert d.terminate() == 0
    d.start()
    [token] = d.call("access.tokens.list")["tokens"]
    assert token["last_method"] == "stats" and "(pid " in token["last_door"]  # this test's process
