"""Forget means gone, through every derived copy, over a real daemon and the CLI a person uses.

A WhatsApp group (a phone set to Spanish) is imported; a person forgets the message with the
money and the Bizum number, and the one with the key-box code. Then everything that could bring
the words back runs on purpose: the later export of the same chat imported, the same chat as an
iPhone exported it (other keys: times with seconds), the Observer forced on every session, the
Reflector, consolidation, the daily log, an export of the whole store. The words are found
nowhere: not in memories, packs, turn search, observations, the workspace or the archive.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tarfile

import pytest
from click.testing import CliRunner
from conftest import wait_for

from agentmemd.daemon.cli.main import cli
from agentmemd.daemon.socket.client import RpcCallError
from agentmemd.memory.llm.tasks import SUMMARISE

pytestmark = pytest.mark.process  # the tier (pyproject.toml)

FIRST = """14/6/24, 8:58 - Los mensajes y las llamadas están cifrados de extremo a extremo. Nadie fuera de este chat, ni siquiera WhatsApp, puede leerlos ni escucharlos.
14/6/24, 8:58 - Marco creó el grupo "Piso Gràcia"
14/6/24, 9:12 - Marco: Hola! Para la fianza del piso nuevo
14/6/24, 9:13 - Marco: Otra cosa: cada uno pone 120 € este mes, Bizum a mi número 612 34 56 78
14/6/24, 9:14 - Carla: Vale, lo hago esta tarde
14/6/24, 9:20 - Lucía: Perfecto, yo también
15/6/24, 18:02 - Lucía: Llaves en el buzón, código 4721
15/6/24, 18:05 - Carla: Gracias! Llego a las ocho
15/6/24, 18:07 - Marco: Acordaos de regar las plantas del balcón
"""
LATER = (
    FIRST
    + """16/6/24, 10:30 - Lucía: El viernes cenamos juntos en casa?
16/6/24, 10:31 - Carla: Sí, yo traigo la tortilla
"""
)
# The same chat as an iPhone exports it: other times (seconds), so other keys.
IPHONE = """[14/6/24, 9:13:41] Marco: Otra cosa: cada uno pone 120 € este mes, Bizum a mi número 612 34 56 78
[15/6/24, 18:02:09] Lucía: Llaves en el buzón, código 4721
[15/6/24, 18:05:30] Carla: Gracias! Llego a las ocho
"""
MONEY, CODE = "Bizum a mi número", "4721"


def run(d, *args: str):
    result = CliRunner().invoke(cli, ["--socket", str(d.socket), *args])
    assert result.exit_code == 0, (args, result.output)
    return result


def import_chat(d, tmp, text: str, name: str = "Chat de WhatsApp con Piso Gràcia.txt") -> dict:
    path = tmp / "exports" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    done = run(d, "--json", "import", "whatsapp", str(path), "--me", "Carla", "--tz", "Europe/Madrid")
    return json.loads(done.stdout)


def holding(d, words: str) -> list[dict]:
    """Every live memory (any type) holding ``words``."""
    items = d.call("memory.list", {"contains": words, "limit": 100})["items"]
    return [m for m in items if words in m["content"]]


@pytest.fixture
def daemon_with_a_group(spawn, short_tmp):
    workspace = short_tmp / "ws"
    workspace.mkdir()
    d = spawn({"workspace": {"path": str(workspace), "debounce_ms": 100}})
    first = import_chat(d, short_tmp, FIRST)
    assert first["added"] == 7, first
    wait_for(lambda: holding(d, MONEY) and holding(d, CODE))
    return d, workspace, first


def test_forgotten_words_stay_gone_through_every_background_job_and_import(daemon_with_a_group, short_tmp):
    d, workspace, first = daemon_with_a_group
    sessions = first["chats"][0]["sessions"]
    money = holding(d, MONEY)[0]
    preview = run(d, "forget", money["id"])
    assert "would forget" in preview.stdout and "conversation turn(s)" in preview.stdout, preview.stdout
    assert "tombstone" in preview.stdout and "stays:" in preview.stdout
    assert holding(d, MONEY), "a preview changes nothing"
    done = json.loads(run(d, "--json", "forget", money["id"], "--yes").stdout)
    assert done["forgotten"] and done["turns"] == 1

    # By hand: the key-box code, then the Observer forced on its session at once.
    code = holding(d, CODE)[0]
    run(d, "forget", code["id"], "--yes")
    for session in sessions:
        run(d, "conversation", "observe", session, "--reflect")

    # The later export of the same chat, and the same chat from an iPhone (other keys).
    later = import_chat(d, short_tmp, LATER)
    assert later["added"] == 2 and later["duplicates"] == 7, later
    iphone = import_chat(d, short_tmp, IPHONE, "Piso Gràcia.txt")
    assert iphone["forgotten"] == 2, iphone  # stored as tombstones: never indexed, never observed
    for session in {s for report in (later, iphone) for chat in report["chats"] for s in chat["sessions"]}:
        run(d, "conversation", "observe", session, "--reflect")
    for job in ("consolidate", "daily_log"):
        run(d, "jobs", "run", job)
    wait_for(lambda: holding(d, "la tortilla"))  # the later export is searchable: the episodes ran

    for words in (MONEY, "120 €", CODE, "612 34 56 78"):
        assert holding(d, words) == [], words
        hits = d.call("memory.search", {"query": words, "k": 20})["results"]
        assert not [h for h in hits if words in h["content"]], words
        assert words not in run(d, "messages", words).stdout
    for question in ("¿Cuánto pone cada uno este mes y a qué número?", "where are the keys, what is the code?"):
        pack = d.call("context.pack", {"query": question, "budget_tokens": 2000})["text"]
        assert MONEY not in pack and CODE not in pack and "120 €" not in pack, pack
    for words in (MONEY, "120 €", CODE, "612 34 56 78"):
        observations = d.call("observations.list", {})["observations"]
        assert not [o for o in observations if words in o["content"]], words
        for path in workspace.rglob("*.md"):
            assert words not in path.read_text(encoding="utf-8"), (words, path)
    assert "Acordaos de regar las plantas" in json.dumps(holding(d, "regar las plantas"))  # the rest stays

    archive = short_tmp / "memory.tar.gz"
    subprocess.run(
        [sys.executable, "-m", "agentmemd.daemon.cli", "export", str(archive), "--data-dir", str(d.data_dir)],
        check=True,
        capture_output=True,
    )
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            if member.isfile():
                text = tar.extractfile(member).read().decode("utf-8", errors="replace")
                assert MONEY not in text and "Llaves en el buzón, código" not in text, member.name


def test_the_observer_and_turn_search_never_bring_back_a_forgotten_message(daemon_with_a_group):
    """By hand, as found: forget the key-box code, run the Observer on its chat, search the messages."""
    d, _, first = daemon_with_a_group
    code = holding(d, CODE)[0]
    d.call("memory.forget", {"id": code["id"], "confirm": True})
    for session in first["chats"][0]["sessions"]:
        d.call("conversation.observe", {"session": session, "reflect": True})
    assert holding(d, CODE) == []
    assert CODE not in run(d, "messages", "buzón código").stdout
    assert "Gracias! Llego a las ocho" in run(d, "messages", "llego ocho").stdout  # the next message stays


def test_the_daily_log_holds_no_private_chat_and_a_kept_line_stays_the_users(spawn, short_tmp):
    """The daily log writes what the Observer saw today into memory/<date>.md. A 1:1 chat's words
    never go there (the log is the user's own file, and a private chat does not reach the user by
    default); a line a person keeps from it is heard by no group; what the daemon creates is 0600/0700."""
    workspace = short_tmp / "ws"
    workspace.mkdir(mode=0o755)
    d = spawn({"workspace": {"path": str(workspace), "debounce_ms": 100}, "clock": {"start": "2026-11-20T09:00:00Z"}})
    private = {
        "channel": "whatsapp", "chat_id": "whatsapp:giulia", "title": "Giulia", "kind": "private", "owner": "Carla",
        "messages": [
            {"sender": "Giulia", "ts": "2026-11-20T08:00:00Z", "text": "Mi hanno presa alla Ferrari a Maranello, inizio a gennaio!", "line": 1},
            {"sender": "Carla", "ts": "2026-11-20T08:01:00Z", "text": "Complimenti!! Festeggiamo sabato", "line": 2},
        ],
    }  # fmt: skip
    group = {
        "channel": "telegram", "chat_id": "telegram:-100777", "title": "Climbing", "kind": "group", "owner": "Carla",
        "messages": [
            {"sender": "Ben", "ts": "2026-11-20T08:05:00Z", "text": "Climbing at the Sharma gym on Sunday at ten", "line": 3},
            {"sender": "Carla", "ts": "2026-11-20T08:06:00Z", "text": "Count me in, I'll bring the rope", "line": 4},
        ],
    }  # fmt: skip
    for chat in (private, group):
        done = d.call("channels.ingest", chat)
        for session in done["sessions"]:
            d.call("conversation.observe", {"session": session})
    d.call("jobs.run", {"name": "daily_log"})
    log = workspace / "memory" / "2026-11-20.md"
    text = log.read_text(encoding="utf-8")
    assert "Sharma gym" in text and "Maranello" not in text, text
    assert oct(log.stat().st_mode & 0o777) == "0o600" and oct(log.parent.stat().st_mode & 0o777) == "0o700"

    # A person fixes a typo in a line of the daemon's section: the line becomes theirs, the user's own.
    edited = "\n".join(
        line.replace("Sharma gym", "Sharma climbing gym") if "Sharma gym" in line else line for line in text.split("\n")
    )
    log.write_text(edited, encoding="utf-8")
    d.call("jobs.run", {"name": "daily_log"})
    wait_for(lambda: holding(d, "Sharma climbing gym"))
    kept = holding(d, "Sharma climbing gym")[0]
    assert kept["source"].startswith("memory/2026-11-20.md")
    heard = d.call("memory.search", {"query": "Sharma climbing gym Sunday", "audience": "group:telegram:-100777"})
    assert kept["id"] not in [h["id"] for h in heard["results"]]
    for words in ("Ferrari", "Maranello"):
        heard = d.call("memory.search", {"query": f"Giulia {words}", "audience": "group:telegram:-100777"})
        assert not [h for h in heard["results"] if words in h["content"]]
    # Forgetting what the kept line quotes names the file: the line is the person's, and stays.
    quoted = re.search(r"`(m[0-9a-f]{15})`", kept["content"]).group(1)
    plan = d.call("memory.forget", {"id": quoted})
    assert plan["workspace_files"] == ["memory/2026-11-20.md"], plan


def test_the_context_builds_kept_for_review_forget_what_they_quoted(spawn):
    d = spawn()
    code = d.call("memory.add", {"content": "The storage unit code is QX-8812-ZV", "type": "fact"})["id"]
    d.call("conversation.append", {"session": "s", "role": "user", "content": "What's the storage unit code?"})
    d.call("conversation.context", {"session": "s", "budget_tokens": 2000})
    kept = json.dumps(d.call("conversation.contexts", {"session": "s"}))
    assert "QX-8812-ZV" in kept  # the build shows what the agent was given
    d.call("memory.forget", {"id": code, "confirm": True})
    assert "QX-8812-ZV" not in json.dumps(d.call("conversation.contexts", {"session": "s"}))


def test_a_model_answer_in_flight_while_its_words_are_forgotten_is_not_cached(in_process):
    """A background model call (an impression, an Observer run, a summary) reads the words, then the
    person forgets them while the call is out: the answer may still be used once, but it is not
    kept in the response cache, where a later export or a similar prompt would bring it back."""
    from agentmemd.memory.core.config import CacheConfig
    from agentmemd.memory.llm.cache import ResponseCache
    from agentmemd.memory.llm.tasks import SummaryResult

    d = in_process(fake_embedder=True)
    said = d.call("memory.add", {"content": f"Marco: {MONEY} 612 34 56 78", "type": "fact"})
    d.call("memory.add", {"content": "Marco: acordaos de regar las plantas", "type": "fact"})
    services = d.services
    cache = ResponseCache(services.store, services.memories.embedder, services.memories.clock, CacheConfig(), "local")

    def summarise(texts: list[str], forget: str | None = None) -> SummaryResult:
        def compute() -> SummaryResult:
            if forget:  # the person forgets while the model is still answering
                d.call("memory.forget", {"id": forget, "confirm": True})
            return SummaryResult(summary=" / ".join(texts))

        return cache.through(SUMMARISE, "default", texts, compute, run_on_store=d.run_on_store)

    answer = summarise([f"Marco: {MONEY} 612 34 56 78"], forget=said["id"])
    assert MONEY in answer.summary  # the caller still gets its answer
    summarise(["Marco: acordaos de regar las plantas"])  # a call no forget overlapped is cached as before

    def cached(words: str) -> int:
        sql = "SELECT count(*) FROM llm_cache WHERE instr(key_text, ?) > 0 OR instr(response, ?) > 0"
        return d.run_on_store(lambda: services.store.conn.execute(sql, (words, words)).fetchone()[0])

    assert cached(MONEY) == 0 and cached("612 34 56 78") == 0
    assert cached("regar las plantas") == 1


def test_a_context_build_whose_pack_was_not_yet_logged_forgets_what_it_quoted(in_process):
    """The pack log writes beside the requests: a memory forgotten while the pack that chose it
    still waits for the writer takes the context build that quoted it all the same (the store
    never saw that pack's id, so looking for it there found nothing)."""
    import threading

    d = in_process(fake_embedder=True)
    log = d.services.memories.pack_log
    release, writing = threading.Event(), threading.Event()
    original = log._write

    def held(batch):
        writing.set()
        release.wait(30)
        original(batch)

    log._write = held  # (a code no timestamp or id holds by chance: a bare "8812" once matched microseconds)
    try:
        code = d.call("memory.add", {"content": "The storage unit code is QX-8812-ZV", "type": "fact"})["id"]
        d.call("conversation.append", {"session": "s", "role": "user", "content": "What's the storage unit code?"})
        d.call("conversation.context", {"session": "s", "budget_tokens": 2000})
        assert writing.wait(30) and log.pending_count() == 1  # the pack is on its way, not yet in the store
        assert "QX-8812-ZV" in json.dumps(d.call("conversation.contexts", {"session": "s"}))
        d.call("memory.forget", {"id": code, "confirm": True})
    finally:
        release.set()
    log.flush()
    assert "QX-8812-ZV" not in json.dumps(d.call("conversation.contexts", {"session": "s"}))
    assert d.call("packs.list", {})["packs"] == []


def test_an_observation_forgotten_while_the_reflector_reads_it_is_not_merged_back(in_process):
    """The Reflector reads a session's observations; the person forgets one of them before the
    merge is stored: the run stores nothing, and is made again from what remains."""
    d = in_process(fake_embedder=True)
    for text in (
        "My bank PIN is 4721 and I keep forgetting it",
        "My bank PIN is 4721 and I keep forgetting it at the shop",
        "I prefer green tea in the morning",
        "I prefer green tea in the morning, without sugar",
    ):
        d.call("conversation.append", {"session": "r", "role": "user", "content": text})
    d.call("conversation.observe", {"session": "r", "force": True, "wait": True})
    observations = d.call("observations.list", {"session": "r"})["observations"]
    sugar = next(o for o in observations if "without sugar" in o["content"])
    worker = d.services.worker
    real = worker.provider.reflect
    forgotten = []

    def forgets_while_read(observations, **kwargs):
        if not forgotten:
            forgotten.append(d.call("memory.forget", {"id": sugar["memory_id"], "confirm": True}))
        return real(observations, **kwargs)

    worker.provider.reflect = forgets_while_read
    report = d.call("conversation.observe", {"session": "r", "reflect": True, "wait": True})
    assert forgotten and report["reflect_runs"], report
    left = d.call("observations.list", {"session": "r"})["observations"]
    assert left and not [o for o in left if "without sugar" in o["content"]], left  # the merge kept its words
    assert d.call("memory.list", {"contains": "without sugar", "limit": 50})["items"] == []


def test_a_forgotten_turn_stays_gone_when_the_app_sends_its_whole_history_again(in_process):
    """The doors that keep an app's history (the proxy, the OpenAI Agents session, the OpenClaw
    plugin, the Claude Code hooks) resend the whole history with each call. A person forgets one
    turn; the app's next call carries it again, the Observer is forced: it comes back nowhere."""
    d = in_process(fake_embedder=True)
    history = [
        {"role": "user", "content": "Quick one: the key box by the door has code 4721"},
        {"role": "assistant", "content": "Got it, I'll remember the key box."},
        {"role": "user", "content": "And the plants on the balcony need water on Fridays"},
        {"role": "assistant", "content": "Noted: balcony plants, Fridays."},
    ]
    first = d.call("conversation.sync", {"session": "app", "turns": history})
    assert first["appended"] == 4
    wait_for(lambda: holding(d, CODE))
    (said,) = holding(d, CODE)
    question = {"query": "what is the key box code?", "budget_tokens": 2000}
    assert CODE in d.call("context.pack", question)["text"]  # what the checks below look for
    assert d.call("memory.forget", {"id": said["id"], "confirm": True})["turns"] == 1

    again = d.call("conversation.sync", {"session": "app", "turns": [*history, {"role": "user", "content": "Thanks!"}]})
    assert again["appended"] == 1, again  # the forgotten turn is known (its tombstone), not stored again
    d.call("conversation.observe", {"session": "app", "force": True, "reflect": True})

    assert holding(d, CODE) == []
    turns = d.call("conversation.turns", {"session": "app"})["turns"]
    assert not [t for t in turns if CODE in t["content"]]
    observations = d.call("observations.list", {})["observations"]
    assert observations and not [o for o in observations if CODE in o["content"]]
    assert CODE not in d.call("context.pack", question)["text"]
    assert holding(d, "balcony")  # the rest stays

    # The same words in another conversation (found through the proxy: a new session brought a
    # forgotten secret back, and the next request carried it upstream); "Thanks!" is anyone's.
    d.call("conversation.sync", {"session": "app2", "turns": [history[0], {"role": "assistant", "content": "Thanks!"}]})
    d.call("conversation.append", {"session": "app3", "role": "user", "content": history[0]["content"]})
    d.call("conversation.observe", {"session": "app2", "force": True})
    d.call("conversation.observe", {"session": "app3", "force": True})
    d.services.episodes.catch_up()
    assert holding(d, CODE) == []
    assert CODE not in d.call("context.pack", question)["text"]
    assert [t["content"] for t in d.call("conversation.turns", {"session": "app2"})["turns"]] == [
        "(forgotten)",
        "Thanks!",
    ]


def test_forgotten_words_leave_the_persona_track(in_process):
    """The agent's turn quoted as a Persona Preservation Record's evidence (and the PersonaState's
    copy of it) kept the words of a turn forgotten since: persona.history, persona.records and an
    export showed 'Bilbao is great. Short winters are rainy though.'."""
    # The agent's replies indexed as episodes, so one of its turns has a memory to forget.
    config = {"clock": {"start": "2026-11-23T20:00:00Z"}, "conversation": {"episodes_of_assistant": True}}
    d = in_process(config, fake_embedder=True)
    said = [
        ("user", "I might move to Bilbao next year, what do you think?"),
        ("assistant", "Bilbao is great! Short winters are rainy though, bring a good umbrella!"),
        ("user", "And the food?"),
        ("assistant", "Pintxos everywhere, you will love it! Honestly one of the best food towns."),
    ]
    for role, text in said:
        d.call("conversation.append", {"session": "s2", "role": role, "content": text})
    d.call("conversation.observe", {"session": "s2"})

    def persona_words() -> str:
        return json.dumps([d.call("persona.history", {}), d.call("persona.records", {}), d.call("persona.get", {})])

    assert "Bilbao is great" in persona_words()  # the record quotes the agent's turn
    d.services.episodes.catch_up()
    told = next(m for m in d.call("memory.list", {"type": "episode"})["items"] if "Short winters" in m["content"])
    d.call("memory.forget", {"id": told["id"], "confirm": True})
    turns = [t["content"] for t in d.call("conversation.turns", {"session": "s2"})["turns"]]
    assert not any("Bilbao is great" in t for t in turns)
    assert "Bilbao is great" not in persona_words() and "(forgotten)" in persona_words()
    rows = d.services.store.conn.execute("SELECT record FROM persona_records").fetchall()
    rows += d.services.store.conn.execute("SELECT state FROM persona_states").fetchall()
    assert not any("Bilbao is great" in text for (text,) in rows)


def test_forgetting_one_turn_of_a_reflector_merge_keeps_what_was_observed_of_the_others(in_process):
    """Three near-duplicate HIGH preferences merged by the Reflector; forgetting the middle turn's
    observation forgot the merge, and left the other two archived as '[merged -> <forgotten id>]':
    the session had no observation of what stays, and observing again did nothing (the turns
    counted as observed)."""
    d = in_process({"clock": {"start": "2026-11-22T09:00:00Z"}}, fake_embedder=True)
    said = [
        "I love hiking in the Pyrenees with my dog Bruno.",
        "I really love hiking in the Pyrenees with Bruno, my dog.",
        "Hiking in the Pyrenees with my dog Bruno is what I love most.",
    ]
    for text in said:
        d.call("conversation.append", {"session": "s3", "role": "user", "content": text})
    d.call("conversation.observe", {"session": "s3", "reflect": True})
    every = d.call("observations.list", {"session": "s3", "include_replaced": True})["observations"]
    merged = [o for o in every if o["status"] == "merged"]
    assert len(merged) == 3, every
    middle = sorted(merged, key=lambda o: o["source_turns"])[1]  # "I really love hiking ... with Bruno, my dog."
    d.call("memory.forget", {"id": middle["memory_id"], "confirm": True})
    live = d.call("observations.list", {"session": "s3"})["observations"]
    shown = " | ".join(o["content"] for o in live)
    assert "with my dog Bruno." in shown and "what I love most" in shown, shown
    assert "with Bruno, my dog" not in shown and len(live) == 2
    for o in live:  # their memories are live again, and found
        assert d.call("memory.get", {"id": o["memory_id"]})["tier"] != "archived"
    assert any(
        "what I love most" in h["content"] for h in d.call("memory.search", {"query": "Pyrenees Bruno"})["results"]
    )


def test_forgotten_words_leave_the_syncscore_records(in_process):
    """Found living with an agent for a week: a forgotten turn ("Tobi wants a sleepover on Friday.")
    stayed quoted in the SyncScore record of the reply that contradicted it (`persona scores`)."""
    d = in_process({"clock": {"start": "2026-11-23T20:00:00Z"}})  # the real model: the contradiction is by meaning
    d.call("conversation.append", {"session": "s1", "role": "user", "content": "Tobi wants a sleepover on Friday.", "speaker": "Ingrid"})  # fmt: skip
    d.call("conversation.append", {"session": "s1", "role": "assistant", "content": "Sunday is family dinner, so he should be home by Saturday afternoon."})  # fmt: skip

    def scores() -> str:
        return json.dumps(d.call("persona.scores", {"session": "s1"}))

    wait_for(lambda: "Tobi wants a sleepover" in scores(), timeout=60)
    d.services.episodes.catch_up()
    (episode,) = [
        m for m in d.call("memory.search", {"query": "Tobi sleepover Friday", "types": ["episode"]})["results"]
        if "sleepover" in m["content"]
    ]  # fmt: skip
    d.call("memory.forget", {"id": episode["id"], "confirm": True})
    assert "sleepover" not in scores() and "(forgotten)" in scores()
    rows = d.services.store.conn.execute("SELECT details FROM sync_scores").fetchall()
    assert not any("sleepover" in text for (text,) in rows)


def test_a_workspace_section_that_cannot_be_rewritten_is_named_and_the_forget_stands(in_process, short_tmp):
    """Found editing the daily log: with its end marker deleted, `memory forget --yes` answered an
    error (rc 1, "the daemon's section is broken") after the store had forgotten the memory; with
    the log a link out of the workspace, the forget said nothing of the line still quoting it."""
    workspace = short_tmp / "ws"
    workspace.mkdir()
    d = in_process({"clock": {"start": "2026-11-20T09:00:00Z"}}, fake_embedder=True, workspace=workspace)
    kept = d.call("memory.add", {"content": "The bike lock code is on the fridge note", "type": "fact"})["id"]
    gone = d.call("memory.add", {"content": "Astrid's Volvo charges overnight in the garage", "type": "fact"})["id"]
    d.call("jobs.run", {"name": "daily_log"})
    log = workspace / "memory" / "2026-11-20.md"
    text = log.read_text(encoding="utf-8")
    assert gone in text and "<!-- agentmemd:end -->" in text
    log.write_text(text.replace("<!-- agentmemd:end -->", ""), encoding="utf-8")  # a person's slip
    done = d.call("memory.forget", {"id": gone, "confirm": True})
    assert done["forgotten"] and done["workspace_sections"] == []
    (why,) = done["workspace_unwritten"]
    assert why.startswith("memory/2026-11-20.md: ") and "without" in why
    with pytest.raises(Exception, match="no memory"):
        d.call("memory.get", {"id": gone})
    # The log kept elsewhere (a dotfiles folder) and linked in: not written through, and said so.
    outside = short_tmp / "elsewhere.md"
    log.write_text(text, encoding="utf-8")
    log.rename(outside)
    log.symlink_to(outside)
    done = d.call("memory.forget", {"id": kept, "confirm": True})
    assert done["forgotten"] and [w.split(": ", 1)[0] for w in done["workspace_unwritten"]] == ["memory/2026-11-20.md"]
    assert "links outside the workspace" in done["workspace_unwritten"][0]


def test_a_forgotten_workspace_item_stays_forgotten_while_its_line_is_unchanged(in_process, short_tmp):
    """Found editing MEMORY.md: a forgotten item was back within a second under a new id, the
    daemon's own write to the file (its consolidated section) re-reading it; the line is the
    person's and stays, its memory does not come back until the line is edited."""
    ws = short_tmp / "ws"
    ws.mkdir()
    memory_md = ws / "MEMORY.md"
    memory_md.write_text(
        "# MEMORY\n\n- Astrid's Volvo XC40 charges overnight in the garage\n- The spare key is with the neighbour\n"
    )
    d = in_process({"clock": {"start": "2026-11-21T09:00:00Z"}}, fake_embedder=True, workspace=ws)

    def volvo() -> list[str]:
        return [
            h["content"]
            for h in d.call("memory.search", {"query": "Volvo charges garage"})["results"]
            if "Volvo" in h["content"]
        ]

    (hit,) = [
        h for h in d.call("memory.search", {"query": "Volvo charges garage"})["results"] if "Volvo" in h["content"]
    ]
    assert d.call("memory.forget", {"id": hit["id"], "confirm": True})["workspace_files"] == ["MEMORY.md"]
    memory_md.write_text(memory_md.read_text() + "- Bins go out on Tuesday\n")  # any save of the file
    d.call("workspace.sync", {})
    assert volvo() == [] and "Volvo" in memory_md.read_text()  # the person's line stays, forgotten
    assert [h["content"] for h in d.call("memory.search", {"query": "bins Tuesday"})["results"]][
        0
    ] == "Bins go out on Tuesday"
    memory_md.write_text(memory_md.read_text().replace("XC40 charges", "XC40 now charges"))  # edited: theirs again
    d.call("workspace.sync", {})
    assert volvo() == ["Astrid's Volvo XC40 now charges overnight in the garage"]


@pytest.mark.sqlite_file
def test_forgotten_words_leave_the_database_files_at_once(in_process):
    """Forgotten, the words were gone from every answer but still in agentmemd.db (the pages their
    rows had used, the full-text indexes' old segments) and its WAL: a copy of the data dir gave
    the wifi password back. They are in no file of the store once the forget is answered."""
    d = in_process(fake_embedder=True)
    value = "Kartoffel-Salat-77"
    d.call("memory.add", {"content": "The balcony plants need water on Fridays", "type": "fact"})
    said = f"Hey, I just moved into the new flat in Berlin. The wifi password is {value}, write it down."
    d.call("conversation.append", {"session": "s", "role": "user", "content": said})
    d.call("conversation.append", {"session": "s", "role": "assistant", "content": f"I have noted {value} for you."})
    d.services.episodes.catch_up()
    d.call("conversation.observe", {"session": "s", "force": True, "wait": True})
    d.call("context.pack", {"query": "what's the wifi password?", "budget_tokens": 500})

    def in_files() -> list[str]:
        return [
            f.name
            for f in d.data_dir.iterdir()
            if f.is_file() and any(v.encode() in f.read_bytes() for v in (value, value.lower(), "kartoffel"))
        ]

    assert in_files()  # what the check below looks for
    (episode,) = [h for h in holding(d, "Kartoffel") if h["type"] == "episode" and "wifi" in h["content"]]
    forgotten = d.call("memory.forget", {"id": episode["id"], "confirm": True})
    assert forgotten["turns"] == 2 and forgotten["also"]  # the assistant's repeat, and its turn, went with it
    assert in_files() == []
    assert holding(d, "balcony")  # the rest stays


def test_forgetting_a_secret_takes_the_agents_reply_that_repeats_it(in_process):
    """The docs' own example, in a chat: the agent's "Noted, the wifi is Kiwi$Lemon77" has no episode
    (an assistant's replies are not indexed by default), so forgetting the password left the reply
    whole in the transcript, the next context and the file."""
    d = in_process(fake_embedder=True)
    said = [{"sender": "Leo", "ts": "2026-03-12T21:16:00", "text": "the wifi password is Kiwi$Lemon77 btw", "line": 1}]
    chat = d.call(
        "channels.ingest",
        {"channel": "whatsapp", "chat_id": "whatsapp:leo", "kind": "private", "tz": "UTC", "messages": said},
    )
    (session,) = chat["sessions"]
    d.call(
        "conversation.append", {"session": session, "role": "assistant", "content": "Noted, the wifi is Kiwi$Lemon77"}
    )
    d.call("conversation.append", {"session": "mine", "role": "user", "content": "Leo says the wifi is Kiwi$Lemon77"})
    d.services.episodes.catch_up()
    (episode,) = [h for h in holding(d, "Kiwi$Lemon77") if h["type"] == "episode" and "Leo said" in h["content"]]
    preview = d.call("memory.forget", {"id": episode["id"]})
    assert preview["turns"] == 3  # Leo's, the agent's reply, the user's own repeat
    d.call("memory.forget", {"id": episode["id"], "confirm": True})
    for s in (session, "mine"):
        turns = d.call("conversation.turns", {"session": s})["turns"]
        assert turns and not [t for t in turns if "Kiwi" in t["content"]], turns
    assert holding(d, "Kiwi") == []
    assert not [f for f in d.data_dir.iterdir() if f.is_file() and b"Kiwi$Lemon77" in f.read_bytes()]


def test_a_forget_takes_the_packs_that_carried_it_and_leaves_those_that_only_considered_it(in_process):
    """Forgetting one memory emptied almost the whole pack log: every pack it had been a candidate
    in went, though a candidate is logged by id and its text read from the store."""
    d = in_process(fake_embedder=True)
    kept = d.call("memory.add", {"content": "The quilting fair is on Saturday at the town hall", "type": "fact"})["id"]
    other = d.call("memory.add", {"content": "The quilting club meets on Tuesdays", "type": "fact"})["id"]
    pack = d.call("context.pack", {"query": "quilting fair Saturday town hall", "budget_tokens": 85})
    chosen = [i["id"] for i in pack["items"]]
    assert chosen == [kept]
    explained = d.call("context.explain", {"pack_id": pack["pack_id"]})
    assert other in [c["id"] for c in explained["candidates"]]  # considered, left out
    d.call("memory.forget", {"id": other, "confirm": True})
    after = d.call("context.explain", {"pack_id": pack["pack_id"]})  # still logged
    assert next(c for c in after["candidates"] if c["id"] == other)["content"] is None
    d.call("memory.forget", {"id": kept, "confirm": True})
    with pytest.raises(RpcCallError, match="no pack with id"):
        d.call("context.explain", {"pack_id": pack["pack_id"]})


def test_a_forget_lowers_the_count_of_the_daily_logs_heading_it_took_a_line_from(in_process, short_tmp):
    """The daily log's "### Observations (3)" stayed 3 after one of its lines was forgotten, until
    the next write."""
    from conftest import template_workspace

    workspace = template_workspace(short_tmp / "ws")
    d = in_process({"clock": {"start": "2026-11-20T09:00:00Z"}}, fake_embedder=True, workspace=workspace)
    for said in ("I signed up for the pottery course downtown", "My sister Clara moves to Porto next month",
                 "I prefer tea over coffee these days"):  # fmt: skip
        d.call("conversation.append", {"session": "s", "role": "user", "content": said})
        d.call("conversation.append", {"session": "s", "role": "assistant", "content": "Noted."})
    d.call("conversation.observe", {"session": "s", "force": True, "wait": True})
    d.call("jobs.run", {"name": "daily_log"})
    log = workspace / "memory" / "2026-11-20.md"
    counted = re.search(r"### Observations \((\d+)\)", log.read_text()).group(1)
    observed = [o for o in d.call("observations.list", {"session": "s"})["observations"] if "Clara" in o["content"]]
    assert observed and f"`{observed[0]['memory_id']}`" in log.read_text()
    done = d.call("memory.forget", {"id": observed[0]["memory_id"], "confirm": True})
    assert done["workspace_sections"] == ["memory/2026-11-20.md"]
    text = log.read_text()
    assert "Clara" not in text and f"### Observations ({int(counted) - 1})" in text, text
