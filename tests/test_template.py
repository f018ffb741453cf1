"""A fresh workspace (`agentmemd init`) holds examples, never facts about the user: nothing in it
answers a question about the person, and their own memories are the answer."""

from __future__ import annotations

import pytest

from agentmemd.memory.workspace.template import init_workspace

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)


def test_a_fresh_workspace_answers_nothing_about_the_user(in_process, short_tmp):
    ws = short_tmp / "ws"
    init_workspace(ws, short_tmp / "agentmemd.toml")
    d = in_process({"clock": {"start": "2026-03-01T09:00:00Z"}}, workspace=ws)
    indexed = d.call("memory.list", {"limit": 100})["items"]
    # The agent's starting persona (SOUL.md, IDENTITY.md) is live; nothing about the user is.
    assert indexed and {m["type"] for m in indexed} == {"persona"}, [(m["type"], m["content"]) for m in indexed]
    assert {m["source"].split("#")[0] for m in indexed} <= {"SOUL.md", "IDENTITY.md"}
    for question in ("what am I allergic to?", "when is my sister's birthday?", "what are my working hours?"):
        hits = d.call("memory.search", {"query": question, "k": 5})["results"]
        assert [h["content"] for h in hits if h["type"] != "persona"] == [], question

    peanuts = d.call("memory.add", {"content": "I am allergic to peanuts.", "type": "fact"})["id"]
    giulia = d.call("memory.add", {"content": "Giulia's birthday is on 14 May.", "type": "fact"})["id"]
    assert d.call("memory.search", {"query": "what am I allergic to?", "k": 3})["results"][0]["id"] == peanuts
    assert d.call("memory.search", {"query": "when is Giulia's birthday?", "k": 3})["results"][0]["id"] == giulia


def test_what_init_makes_is_the_users_alone_and_a_persons_files_are_left_as_they_are(short_tmp):
    """The workspace and config `agentmemd init` writes hold a person's life: 0600 and 0700, as the
    data dir and the files the daemon writes there are (they were 0644 and 0755)."""
    import stat

    ws = short_tmp / "ws"
    ws.mkdir(mode=0o755)
    ws.chmod(0o755)
    (ws / "USER.md").write_text("# Me\n")
    (ws / "USER.md").chmod(0o644)
    created, config = init_workspace(ws / "", short_tmp / "conf" / "agentmemd.toml")
    assert created and config is not None
    for path in [*created, config]:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    for folder in {p.parent for p in created} - {ws} | {config.parent}:
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert ws / "USER.md" not in created and stat.S_IMODE((ws / "USER.md").stat().st_mode) == 0o644
    assert stat.S_IMODE(ws.stat().st_mode) == 0o755  # a folder the person made keeps its mode
