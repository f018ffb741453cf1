"""A group's context says who said what: the chat APIs give every person the one role `user`."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)


def _message(sender: str, text: str, minute: int) -> dict:
    ts = datetime(2024, 6, 14, 18, 0) + timedelta(minutes=minute)
    return {"sender": sender, "ts": ts.isoformat(), "text": text, "line": minute + 1}


def test_a_groups_context_names_each_speaker(in_process):
    d = in_process(fake_embedder=True)
    said = [
        ("Ana", "I can bring the tent", 0),
        ("Ben", "I'll drive, the car has room for four", 1),
        ("Carla", "Then I do the food", 2),
        ("Ana", "Ben, pick me up at seven?", 3),
    ]
    done = d.call(
        "channels.ingest",
        {
            "channel": "telegram",
            "chat_id": "telegram:-100200",
            "title": "Camping",
            "kind": "group",
            "tz": "UTC",
            "owner": "Carla",
            "messages": [_message(*m) for m in said],
        },
    )
    context = d.call("conversation.context", {"session": done["sessions"][0]})
    shown = [m["content"] for m in context["messages"] if m["role"] == "user"]
    assert [text.split(": ", 1)[0] for text in shown[-4:]] == ["Ana", "Ben", "Carla", "Ana"], shown
    assert shown[-3] == "Ben: I'll drive, the car has room for four"
    assert context["tokens"] <= context["budget_tokens"]


def test_an_apps_own_conversation_is_left_as_it_was(in_process):
    d = in_process(fake_embedder=True)
    for role, text in (("user", "Plan my week"), ("assistant", "Sure: Monday is gym."), ("user", "And Tuesday?")):
        d.call("conversation.append", {"session": "app-1", "role": role, "content": text})
    context = d.call("conversation.context", {"session": "app-1"})
    assert [m["content"] for m in context["messages"] if m["role"] == "user"][0] == "Plan my week"
