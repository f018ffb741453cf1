"""The dashboard over HTTP (issue 18): a real daemon, a real `agentmemd dashboard` process, an
HTTP client. Access (token, session, CSRF, Host and Origin), errors shown on the page with nothing
changed, and every page answering. What only a browser shows: test_dashboard_browser.py."""

from __future__ import annotations

import re
import stat
from pathlib import Path

import httpx2
import pytest
from conftest import free_port, served_daemon, start_listener, wait_for

from agentmemd.daemon.dashboard.access import TOKEN_FILE, session_cookie

pytestmark = pytest.mark.doors  # the tier (pyproject.toml)


def start_dashboard(socket_path: Path, data_dir: Path, log: Path, *extra: str):
    """`agentmemd dashboard` on a free port: (process, base URL, token)."""
    port = free_port()
    args = [
        "dashboard",
        "--socket",
        str(socket_path),
        "--listen",
        f"127.0.0.1:{port}",
        "--data-dir",
        str(data_dir),
    ]
    proc = start_listener([*args, *extra], port, log)
    return proc, f"http://127.0.0.1:{port}", (data_dir / TOKEN_FILE).read_text().strip()


@pytest.fixture(scope="module")
def world():
    with served_daemon() as d:
        ids = {
            "tea": d.call("memory.add", {"content": "The user prefers green tea in the morning", "type": "preference"})[
                "id"
            ],
            "city": d.call("memory.add", {"content": "The user lives in Lyon", "type": "fact"})["id"],
        }
        d.call("context.pack", {"query": "what does the user drink", "budget_tokens": 200})
        proc, base, token = start_dashboard(d.socket, d.root, d.root / "dashboard.log")
        try:
            yield d, base, token, ids
        finally:
            proc.terminate()
            proc.wait(10)


def session(base: str, token: str) -> tuple[httpx2.Client, str]:
    """A client that opened the token link (a session cookie), and the page's CSRF token."""
    client = httpx2.Client(base_url=base, follow_redirects=True, timeout=30)
    page = client.get(f"/?token={token}")
    assert page.status_code == 200 and "token=" not in str(page.url)  # the link's token leaves the address
    return client, _csrf(client)


def _csrf(client: httpx2.Client) -> str:
    page = client.get("/memories")
    return re.search(r'"X-CSRF-Token": "([^"]+)"', page.text).group(1)


def test_the_token_file_is_private_and_reused(world):
    d, base, token, _ = world
    path = d.root / TOKEN_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and len(token) >= 40
    proc, _, again = start_dashboard(d.socket, d.root, d.root / "dashboard2.log")
    proc.terminate()
    assert again == token  # a bookmarked link keeps working across restarts


def test_no_token_gets_401_and_changes_nothing(world):
    d, base, token, ids = world
    anonymous = httpx2.Client(base_url=base, timeout=30)
    for path in ("/", "/memories", f"/memories/default/{ids['city']}", "/packs"):
        assert anonymous.get(path).status_code == 401
    assert anonymous.get("/?token=not-the-token").status_code == 401
    refused = anonymous.post(f"/memories/default/{ids['city']}/forget", data={"confirm": "yes"})
    assert refused.status_code == 401
    assert d.call("memory.get", {"id": ids["city"]})["content"] == "The user lives in Lyon"


def test_the_token_link_starts_a_session_cookie(world):
    _, base, token, _ = world
    client = httpx2.Client(base_url=base, timeout=30)
    first = client.get(f"/memories?type=fact&token={token}")
    assert first.status_code == 303 and first.headers["location"] == "/memories?type=fact"
    cookie = first.headers["set-cookie"]
    assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()
    # Named for the port: a browser shares one host's cookies across ports, and two dashboards on
    # one machine must not sign each other out.
    assert cookie.startswith(session_cookie(httpx2.URL(base).port) + "=")
    assert client.get("/memories?type=fact").status_code == 200


def test_a_forged_cross_site_post_is_refused(world):
    d, base, token, ids = world
    client, _ = session(base, token)
    target = f"/memories/default/{ids['city']}/edit"
    forged = client.post(
        target, data={"content": "The user lives in Mordor"}, headers={"Origin": "http://evil.example"}
    )
    assert forged.status_code == 403 and "Origin" in forged.text
    no_csrf = client.post(target, data={"content": "The user lives in Mordor"}, headers={"Origin": base})
    assert no_csrf.status_code == 403 and "CSRF" in no_csrf.text
    assert d.call("memory.get", {"id": ids["city"]})["content"] == "The user lives in Lyon"


def test_a_rebinding_host_is_refused(world):
    _, base, token, _ = world
    rebound = httpx2.get(base + "/", headers={"Host": "attacker.example:80", "Authorization": f"Bearer {token}"})
    assert rebound.status_code == 400


def test_memories_are_filtered_by_how_they_feel(world):
    d, base, token, ids = world
    upset = d.call("memory.add", {"content": "I'm furious the council closed the pool!", "type": "fact"})["id"]
    client, _ = session(base, token)
    page = client.get("/memories?emotion=anger")
    assert page.status_code == 200 and upset in page.text and ids["city"] not in page.text
    assert '<span class="tag emotion">anger</span>' in page.text
    detail = client.get(f"/memories/default/{upset}").text
    assert re.search(r'id="affect">anger · valence -0\.\d\d · arousal 0\.\d\d<', detail), detail
    assert 'id="affect">neutral<' in client.get(f"/memories/default/{ids['city']}").text
    bad = client.get("/memories?emotion=smug")
    assert bad.status_code == 400 and "emotion" in bad.text
    d.call("memory.forget", {"id": upset, "confirm": True})


def test_lists_mask_secrets_and_the_secrets_view_lists_them_for_review(world):
    d, base, token, ids = world
    card = "4111 1111 1111 1111"
    held = d.call("memory.add", {"content": f"The user's main visa is {card}", "type": "fact"})["id"]
    d.call("context.pack", {"query": "what is my credit card number?", "budget_tokens": 300})  # packs it: asked for
    client, _ = session(base, token)
    listing = client.get("/memories").text
    assert held in listing and card not in listing and "[card number withheld]" in listing
    assert '<span class="tag secret">card number</span>' in listing
    secrets = client.get("/memories?secrets=true").text
    assert held in secrets and ids["tea"] not in secrets and 'id="secrets-note"' in secrets
    assert 'href="/memories?secrets=true"' in client.get("/").text  # in the navigation
    packs = client.get("/packs").text + client.get("/").text
    pack_id = d.call("packs.list", {"limit": 1})["packs"][0]["pack_id"]
    explained = client.get(f"/packs/default/{pack_id}").text
    assert card not in packs and card not in explained and "[card number withheld]" in explained
    assert card in client.get(f"/memories/default/{held}").text  # its own page shows it whole, to review
    # A password said again without the words that mark it ("Noted: …") is masked too, in the
    # list and in the forget page's preview of what goes with it.
    wifi = d.call("memory.add", {"content": "The wifi password is Tortuga$Lenta42", "type": "fact"})["id"]
    noted = d.call("memory.add", {"content": "Noted: Tortuga$Lenta42, I will keep it.", "type": "fact"})["id"]
    assert noted in client.get("/memories?secrets=true").text and "Lenta42" not in client.get("/memories").text
    plan = client.get(f"/memories/default/{wifi}/forget").text
    assert noted in plan and plan.count("Lenta42") == 1  # the memory to forget, whole; its repeat, masked
    d.call("memory.forget", {"id": wifi, "confirm": True})
    d.call("memory.forget", {"id": held, "confirm": True})


def test_every_page_answers(world):
    _, base, token, ids = world
    client, _ = session(base, token)
    pack_id = client.get("/packs").text.split("/packs/default/")[1].split('"')[0]
    for path in (
        "/",
        "/memories",
        "/memories?tier=active&type=preference",
        f"/memories/default/{ids['tea']}",
        f"/memories/default/{ids['tea']}/forget",
        "/packs",
        "/packs?query=what+does+the+user+drink&budget_tokens=300",
        f"/packs/default/{pack_id}",
        "/identity",
    ):
        page = client.get(path)
        assert page.status_code == 200, (path, page.text[:500])
        assert "That did not work" not in page.text


def test_the_identity_graph_is_browsed_with_where_each_relation_comes_from(world):
    d, base, token, _ = world
    client, _ = session(base, token)
    values = d.call("identity.edge.add", {"relation": "values", "target": "honesty", "note": "never lie"})
    d.call("identity.edge.add", {"relation": "is a kind of", "target": "virtue", "source": "honesty"})
    graph = client.get("/identity")
    assert graph.status_code == 200 and "never lie" in graph.text and f"/memories/default/{values['id']}" in graph.text
    node = client.get("/identity/node?name=Honesty&hops=2")
    assert node.status_code == 200 and 'id="node"' in node.text and "virtue" in node.text
    missing = client.get("/identity/node?name=nobody")
    assert missing.status_code == 404 and "no node named" in missing.text
    bad_hops = client.get("/identity/node?name=honesty&hops=9")
    assert bad_hops.status_code == 400 and "hops" in bad_hops.text


def test_goals_are_added_shown_and_done_from_the_identity_page(world):
    d, base, token, _ = world
    client, csrf = session(base, token)
    headers = {"Origin": base, "X-CSRF-Token": csrf}
    bad = client.post(
        "/identity/goals", data={"text": "Renew the passport", "due": "2026-02-30T10:00:00Z"}, headers=headers
    )
    assert bad.status_code == 400 and "due" in bad.text and 'id="error"' in bad.text
    assert d.call("goal.list", {"status": "all"})["goals"] == []  # nothing stored
    # The form comes back as typed, to correct the date, not to type the goal again.
    assert 'value="Renew the passport"' in bad.text and 'value="2026-02-30T10:00:00Z"' in bad.text
    added = client.post(
        "/identity/goals",
        data={"text": "Ask how the interview went", "priority": "high", "trigger": "interview"},
        headers=headers,
    )
    assert added.history[0].status_code == 303 and added.history[0].headers["location"].endswith("#goals")
    [goal] = d.call("goal.list", {})["goals"]
    page = client.get("/identity")
    assert f'data-goal="{goal["id"]}"' in page.text and "Ask how the interview went" in page.text
    assert page.text.count('id="goals"') == 1 and "<title>Identity" in page.text.replace("\n", "")
    done = client.post(f"/identity/goals/{goal['id']}/done", headers=headers)
    assert done.history[0].status_code == 303 and "No open goal." in done.text
    assert d.call("goal.list", {})["goals"] == []
    # A goal's secret is masked on the page, as in every list.
    d.call("goal.add", {"text": "Renew Netflix, the password is Fromage#Bleu88"})
    page = client.get("/identity")
    assert "Fromage#Bleu88" not in page.text and "[password withheld]" in page.text


def test_bad_input_is_shown_on_the_page_and_changes_nothing(world):
    d, base, token, ids = world
    client, csrf = session(base, token)
    missing = client.get("/memories/default/m0000000000000000")
    assert missing.status_code == 404 and "no memory with id" in missing.text
    bad_filter = client.get("/memories?created_from=yesterday")
    assert bad_filter.status_code == 400 and "created_from" in bad_filter.text
    bad_tier = client.get("/memories?tier=lukewarm")
    assert bad_tier.status_code == 400 and "tier" in bad_tier.text
    headers = {"Origin": base, "X-CSRF-Token": csrf}
    empty = client.post(f"/memories/default/{ids['city']}/edit", data={"content": "   "}, headers=headers)
    assert empty.status_code == 400 and "content" in empty.text and "must not be empty" in empty.text
    bad_priority = client.post(
        f"/memories/default/{ids['city']}/edit", data={"content": "x", "priority": "high"}, headers=headers
    )
    assert bad_priority.status_code == 400 and "priority" in bad_priority.text
    bad_budget = client.get("/packs?query=tea&budget_tokens=lots")
    assert bad_budget.status_code == 400 and "budget_tokens" in bad_budget.text
    assert d.call("memory.get", {"id": ids["city"]})["version"] == 1


def test_a_script_may_use_the_bearer_token(world):
    d, base, token, _ = world
    added = d.call("memory.add", {"content": "The user collects stamps", "type": "fact"})["id"]
    client = httpx2.Client(base_url=base, timeout=30, headers={"Authorization": f"Bearer {token}"})
    done = client.post(f"/memories/default/{added}/archive")
    assert done.status_code == 303
    assert d.call("memory.get", {"id": added})["tier"] == "archived"


def test_a_named_host_is_answered_and_no_other(world):
    d, _, token, _ = world
    proc, base, _ = start_dashboard(d.socket, d.root, d.root / "dashboard3.log", "--host-name", "agent.lan")
    try:
        port = base.rsplit(":", 1)[1]
        bearer = {"Authorization": f"Bearer {token}"}
        assert httpx2.get(base + "/", headers={**bearer, "Host": f"agent.lan:{port}"}).status_code == 200
        assert httpx2.get(base + "/", headers={**bearer, "Host": f"other.lan:{port}"}).status_code == 400
    finally:
        proc.terminate()
        proc.wait(10)


def test_the_daemon_starts_and_stops_its_dashboard_when_configured(spawn):
    import socket
    import subprocess

    from conftest import wait_for

    port = free_port()
    d = spawn({"dashboard": {"listen": f"127.0.0.1:{port}"}})

    def answers() -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            return False

    wait_for(answers, timeout=60)
    token = (d.data_dir / TOKEN_FILE).read_text().strip()
    page = httpx2.get(f"http://127.0.0.1:{port}/memories", headers={"Authorization": f"Bearer {token}"})
    assert page.status_code == 200 and 'id="memories"' in page.text
    assert httpx2.get(f"http://127.0.0.1:{port}/memories").status_code == 401
    assert d.terminate() == 0
    assert not answers()  # stopped with the daemon

    bad = subprocess.run(
        [*d.command()[:-2], "--config", str(_config(d.root, "0.0.0.0:1"))], capture_output=True, text=True, timeout=120
    )
    assert bad.returncode == 2 and "[dashboard] listen 0.0.0.0:1: 0.0.0.0 is not loopback" in bad.stderr


def _config(root: Path, listen: str) -> Path:
    path = root / "bad.toml"
    path.write_text(f'[dashboard]\nlisten = "{listen}"\n')
    return path


def test_people_and_chats_are_shown_by_name_where_the_pages_showed_their_ids(world):
    """Who said a memory, the chat a turn or a session was in, and the other chats whose memories
    a chat may hear were shown as ``pe_…`` and ``whatsapp:c-…``; they are names and titles now,
    each a link (the id stays beside it, small, where it helps to tell two apart)."""
    d, base, token, _ = world
    group = {"channel": "whatsapp", "chat_id": "whatsapp:c-9b2f", "title": "Cena del sábado", "kind": "group"}
    said = {
        "sender": "Lucía",
        "ts": "2026-03-02T19:05:00Z",
        "line": 1,
        "text": "Me mudé a Valencia, al barrio de Ruzafa",
    }
    done = d.call("channels.ingest", {**group, "namespace": "names", "messages": [said]})
    wait_for(lambda: d.call("channels.pending", {"namespace": "names"})["pending"] == 0)
    (episode,) = d.call("memory.search", {"query": "Valencia Ruzafa", "namespace": "names", "k": 1})["results"]
    client, _ = session(base, token)
    page = client.get(f"/memories/names/{episode['id']}").text
    said_by = re.search(r'id="said-by" href="/people/names/(pe_[^"]+)">([^<]+)</a>', page)
    assert said_by and said_by.group(2) == "Lucía", page[page.find("heard-by") : page.find("heard-by") + 400]
    assert "in Cena del sábado" in page and "in whatsapp:c-9b2f" not in page
    sessions = client.get("/conversations", params={"namespace": "names"}).text
    assert ">Cena del sábado</a>" in sessions and ">whatsapp:c-9b2f<" not in sessions
    assert done["audience"] == "group:whatsapp:c-9b2f"


def test_who_may_hear_a_memory_is_said_with_the_chats_title_not_its_id(world):
    d, base, token, _ = world
    done = d.call("channels.ingest", {"channel": "whatsapp", "chat_id": "whatsapp:c-5a1e", "title": "Piso compartido",
                                      "kind": "group", "messages": [{"sender": "Lucía", "ts": "2026-03-02T10:00:00Z",
                                                                     "line": 1, "text": "La fianza son 900 euros"}]})  # fmt: skip
    said = d.call("memory.add", {"content": "The deposit is 900 euros", "type": "fact", "audience": done["audience"]})
    client, _ = session(base, token)
    page = client.get(f"/memories/default/{said['id']}").text
    assert re.search(
        r'id="heard-by">the group chat &#39;Piso compartido&#39; <span class="muted small">group:whatsapp:c-5a1e', page
    ), page[page.find("heard-by") - 50 : page.find("heard-by") + 200]


def test_a_dashboard_on_every_address_links_and_answers_by_names_a_browser_uses(tmp_path):
    """`--allow-remote --listen 0.0.0.0` printed a link to 0.0.0.0, and 127.0.0.1 or localhost on
    the machine itself got 400 'Invalid host header'."""
    from agentmemd.daemon.dashboard.app import Dashboard, DashboardSettings, link_host

    every = DashboardSettings(socket_path=tmp_path / "s.sock", token="t" * 40, host="0.0.0.0", port=8791)
    assert link_host(every) == "127.0.0.1" and {"127.0.0.1", "localhost"} <= set(Dashboard(every).hosts)
    assert "0.0.0.0" not in Dashboard(every).hosts
    named = DashboardSettings(
        socket_path=tmp_path / "s.sock", token="t" * 40, host="0.0.0.0", port=8791, extra_hosts=("agent.lan",)
    )
    assert link_host(named) == "agent.lan" and "agent.lan" in Dashboard(named).hosts
    one = DashboardSettings(socket_path=tmp_path / "s.sock", token="t" * 40, host="192.168.1.5", port=8791)
    assert link_host(one) == "192.168.1.5" and Dashboard(one).hosts == ["192.168.1.5"]
