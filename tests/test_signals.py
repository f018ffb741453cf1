"""The ranking signals are declared once (memory/core/signals.py): the record a pack builds, what a
hit and a logged candidate carry, the config keys that tune them, the CLI's lines and the docs'
table all follow from that list, so none of them can fall behind it."""

from __future__ import annotations

import tomllib
from dataclasses import fields
from pathlib import Path

import pytest

from agentmemd.memory.core.config import Config, load_config
from agentmemd.memory.core.errors import ConfigError
from agentmemd.memory.core.models import SignalsOut
from agentmemd.memory.core.signals import SIGNAL_NAMES, SIGNALS, signals_line, signals_table
from agentmemd.memory.retrieval.scoring import Signals

pytestmark = pytest.mark.inprocess

ROOT = Path(__file__).resolve().parent.parent


def test_the_record_and_the_socket_model_hold_each_declared_signal_in_its_order():
    assert tuple(f.name for f in fields(Signals)) == SIGNAL_NAMES
    assert tuple(SignalsOut.model_fields) == SIGNAL_NAMES
    meanings = {name: f.description for name, f in SignalsOut.model_fields.items()}
    assert meanings == {s.name: s.meaning for s in SIGNALS}


def test_every_knob_is_a_config_key_with_its_default_and_bounds_and_listed_in_the_shipped_toml():
    shipped = tomllib.loads((ROOT / "agentmemd.toml").read_text())
    config = Config()
    for signal in SIGNALS:
        for knob in signal.knobs:
            assert getattr(getattr(config, knob.section), knob.key) == knob.default, knob
            assert shipped[knob.section][knob.key] == knob.default, f"agentmemd.toml's [{knob.section}] {knob.key}"
            for bound, beyond in ((knob.le, 0.01), (knob.ge, -0.01)):
                if bound is not None:
                    with pytest.raises(ConfigError, match=knob.key):
                        load_config(None, {knob.section: {knob.key: bound + beyond}})


def test_a_search_hit_and_a_logged_candidate_carry_every_signal(in_process):
    d = in_process(fake_embedder=True)
    d.call("memory.add", {"content": "The user is allergic to peanuts", "type": "fact"})
    hit = d.call("memory.search", {"query": "peanuts"})["results"][0]
    assert tuple(hit["signals"]) == SIGNAL_NAMES
    pack = d.call("context.pack", {"query": "peanuts", "budget_tokens": 200})
    explained = d.call("context.explain", {"pack_id": pack["pack_id"]})
    assert explained["candidates"] and all(tuple(c["signals"]) == SIGNAL_NAMES for c in explained["candidates"])


def test_the_cli_line_shows_what_moved_similarity_with_its_sign_and_a_set_feeling():
    quiet = dict.fromkeys(SIGNAL_NAMES, 0.0) | {"similarity": 0.41234, "priority": 0.5, "decay": 0.98, "match": 0.3}
    assert signals_line(quiet) == "sim=0.412 prio=0.50 decay=0.980 freq=0.000"
    moved = quiet | {"answer": 0.112, "time": 0.05, "affect": 0.8}
    assert (
        signals_line(moved)
        == "sim=0.412 prio=0.50 decay=0.980 freq=0.000 match=0.300 time=-0.050 answer=+0.112 affect=0.80"
    )


def test_the_docs_table_names_every_signal_and_its_keys():
    table = signals_table()
    packing = (ROOT / "docs" / "packing.md").read_text()
    assert table in packing
    for signal in SIGNALS:
        assert f"| `{signal.name}` |" in table
        assert all(f"`[{k.section}] {k.key}`" in table for k in signal.knobs)
