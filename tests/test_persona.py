"""Persona (issue 5): PersonaState from the workspace and its history, hard rules that change
only when confirmed, the persona track of compaction, SyncScore of every agent reply,
drift actions carried out by conversation.context, the daily line, the anthropic judge,
and calibration against the hand-labelled set. Real daemons over their sockets; the text
is the scripted Nova conversation (persona/drift_script.py) and the labelled pairs."""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import NO_JOBS, REPO, DaemonProcess, wait_for
from fake_anthropic import KEY_ENV, FakeAnthropic, llm_config, message

from agentmemd.daemon.bench.benchmarks import draw_trace
from agentmemd.daemon.bench.calibrate import LabelsError, calibrate, load_labels
from agentmemd.daemon.bench.drift_script import (
    CONSISTENT,
    PERSONA_FILES,
    SCRIPT,
    SEVERE,
)
from agentmemd.daemon.cli.main import cli
from agentmemd.daemon.socket.client import RpcCallError
from agentmemd.memory.core.tokens import count_tokens
from agentmemd.persona.drift.anchors import anchor, anchor_positions
from agentmemd.persona.drift.record import local_record, render_record
from agentmemd.persona.identity.spec import SpecLine, apply_spec, parse_spec
from agentmemd.persona.identity.state import (
    Evidence,
    PersonaRecord,
    PersonaState,
    Weighted,
    merge_record,
)
from agentmemd.persona.identity.traits import BUILTIN_SCALES, TraitScale, adjective
from agentmemd.persona.syncscore.judge import action_for, trend_of, update_ewma
from agentmemd.persona.syncscore.rules import check

pytestmark = pytest.mark.process  # the tier (pyproject.toml)

LABELS = REPO / "tests" / "data" / "persona_labels.json"
TRAITS = tuple(BUILTIN_SCALES)


def band(ewma: float) -> str:
    return action_for(ewma, 0.7, 0.6, 0.5)


def scored(d, session: str, count: int, timeout: float = 30.0) -> list[dict]:
    return wait_for(
        lambda: (s := d.call("persona.scores", {"session": session})["scores"]) and len(s) >= count and s,
        timeout=timeout,
    )


def nova_state() -> PersonaState:
    lines = [
        SpecLine(line[2:], f"{name} L{i}", True)
        for name in ("SOUL.md", "IDENTITY.md")
        for i, line in enumerate(PERSONA_FILES[name].splitlines(), 1)
        if line.startswith("- ")
    ]
    return apply_spec(PersonaState(namespace="t"), parse_spec(lines), now="2026-01-01T00:00:00Z", top_k=8)


@pytest.fixture(scope="module")
def nova():
    """One daemon on a workspace holding Nova's persona files; tests use their own sessions."""
    with nova_daemon() as d:
        yield d


@contextlib.contextmanager
def nova_daemon():
    root = Path(tempfile.mkdtemp(prefix="amp", dir="/tmp"))
    ws = root / "ws"
    ws.mkdir()
    for name, text in PERSONA_FILES.items():
        (ws / name).write_text(text)
    d = DaemonProcess(
        root,
        {
            "clock": {"start": "2026-05-04T08:00:00Z"},
            "jobs": NO_JOBS,
            "workspace": {"path": str(ws), "debounce_ms": 50},
            "conversation": {"keep_recent_turns": 2},
        },
    ).start()
    d.workspace = ws
    try:
        yield d
    finally:
        d.terminate()
        shutil.rmtree(root, ignore_errors=True)


# ---- the pieces, on their own -------------------------------------------------------------


def test_trait_scales_read_as_adjectives_and_come_from_the_persona_files():
    scale = TraitScale(name="passive-assertive", low="passive", high="assertive")
    assert [adjective(scale, x) for x in (0.05, 0.3, 0.4, 0.5, 0.6, 0.7, 0.95)] == [
        "very passive",
        "passive",
        "somewhat passive",
        "between passive and assertive",
        "somewhat assertive",
        "assertive",
        "very assertive",
    ]
    spec = parse_spec(
        [
            SpecLine("I am Nova, warm, direct and honest.", "SOUL.md L3", True),
            SpecLine("Trait: passive / assertive 70", "IDENTITY.md L4", True),
            SpecLine("Trait: humour 80", "IDENTITY.md L5", True),
            SpecLine("Voice: plain, friendly, no corporate filler.", "IDENTITY.md L6", True),
            SpecLine("Never use emoji.", "IDENTITY.md L7", True),
            SpecLine("Never say anything rude.", "memory", False),
        ]
    )
    state = apply_spec(PersonaState(namespace="t"), spec, now="2026-01-01T00:00:00Z", top_k=8)
    assert state.name == "Nova"
    assert state.traits["passive-assertive"] == 0.7 and state.traits["humor"] == 0.8
    assert state.traits["warmth"] > 0.6 and state.traits["directness"] > 0.6
    # "no corporate filler" is a negated phrase: it does not make the voice "corporate" or anything else.
    assert [w.text for w in state.voice_markers] == ["friendly", "no corporate filler", "plain"]
    # Only the person's files give hard rules: a persona memory added over the socket does not.
    assert state.rules() == ["Never use emoji."] and state.hard_rules[0].source == "workspace"
    # Declared style lines shape the reply profile until replies are measured.
    coder = apply_spec(
        PersonaState(namespace="t"),
        parse_spec(
            [
                SpecLine("Style: bullet lists, code snippets.", "IDENTITY.md L3", True),
                SpecLine("Never use markdown headers.", "IDENTITY.md L4", True),
            ]
        ),
        now="t",
        top_k=8,
    )
    assert coder.style.bullets == 0.6 and coder.style.code == 0.6 and coder.style.headers == 0.0


def test_merge_follows_5_2_exactly_ewma_traits_decayed_top_k_and_rules_untouched():
    state = nova_state().model_copy(update={"voice_markers": [Weighted(text=f"m{i}", weight=1.0) for i in range(3)]})
    record = PersonaRecord(
        traits={"warmth": 0.2, "humor": 0.9, "made-up": 0.5},
        voice_markers=[Weighted(text="m0", weight=0.5), Weighted(text="new", weight=2.0)],
        evidence=[Evidence(snippet="Let's trace it.", source="conversation:s#turn:2")],
        turns=4,
    )
    merged = merge_record(state, record, alpha=0.3, decay=0.8, top_k=3, now="2026-01-02T00:00:00Z", reason="test")
    assert merged.version == state.version + 1
    assert merged.traits["warmth"] == round(0.3 * 0.2 + 0.7 * state.traits["warmth"], 4)
    assert merged.traits["humor"] == round(0.3 * 0.9 + 0.7 * state.traits["humor"], 4)
    assert "made-up" not in merged.traits  # a record cannot invent a scale
    assert merged.traits["directness"] == state.traits["directness"]  # not observed: unchanged
    # m0: 1.0*0.8 + 0.5 = 1.3; new: 2.0; m1, m2: 0.8 -> the top 3 are new, m0, then m1 (name order breaks the tie).
    assert [(w.text, w.weight) for w in merged.voice_markers] == [("new", 2.0), ("m0", 1.3), ("m1", 0.8)]
    assert merged.hard_rules == state.hard_rules
    assert merged.evidence == record.evidence  # kept with the version, for auditing


def test_hard_rules_are_checked_by_rule_where_checkable():
    cases = [
        ("Never use emoji.", "Sure thing 😊", False),
        ("Never use emoji.", "Sure thing.", True),
        ("Always answer in English.", "Tu vuelo sale el domingo a las nueve de la noche.", False),
        ("Always answer in English.", "Your flight leaves on Sunday at nine in the evening.", True),
        ("Keep answers under 10 words.", "This answer has far more than ten words in it, clearly too many.", False),
        ("Keep answers under 3 words.", "One two three.", False),
        ("At most 3 words.", "One two three.", True),
        ("Never say 'As an AI'.", "As an AI, I cannot feel.", False),
        ("No exclamation marks.", "Done!", False),
        ("Don't use bullet points.", "- one\n- two", False),
    ]
    for rule, reply, ok in cases:
        result = check(rule, reply)
        assert result.checkable and result.ok is ok, (rule, reply, result)
    assert not check("No unnecessary pleasantries.", "Hello!").checkable  # left to the judge


def test_ewma_trend_actions_and_anchor_positions_follow_5_3_and_5_4():
    assert update_ewma(0.4, 0.9, 0.3) == pytest.approx(0.3 * 0.4 + 0.7 * 0.9)
    assert update_ewma(0.8, None, 0.3) == 0.8
    # 0.6-0.7 reinforce, 0.5-0.6 anchor, < 0.5 rebase; a band's lower edge belongs to it.
    assert [band(x) for x in (0.75, 0.7, 0.65, 0.6, 0.55, 0.5, 0.45)] == [
        "none",
        "none",
        "reinforce",
        "reinforce",
        "anchor",
        "anchor",
        "rebase",
    ]
    assert trend_of([0.9, 0.85, 0.8, 0.7]) == "drifting" and trend_of([0.5, 0.6, 0.7]) == "recovering"
    assert trend_of([0.8, 0.81, 0.8]) == "stable"
    assert anchor_positions(9) == [] and anchor_positions(10) == [3, 6] and anchor_positions(30) == [10, 20]
    text = anchor(nova_state())
    assert 50 <= count_tokens(text) <= 100 and "Nova" in text and "Never use emoji" in text


def test_the_local_persona_record_measures_the_agents_own_turns():
    turns = []
    for n, (_phase, user, reply) in enumerate(SCRIPT[:20]):
        turns += [
            {"seq": 2 * n + 1, "role": "user", "content": user},
            {"seq": 2 * n + 2, "role": "assistant", "content": reply},
        ]
    record = local_record(turns, session="s")
    assert record.turns == 20 and len(record.evidence) == 3
    markers = {w.text for w in record.voice_markers}
    assert "collaborative ('let's', 'we')" in markers and "uses contractions" in markers
    assert 10 <= record.style.words <= 25 and record.style.emoji == 0 and record.style.bullets == 0
    assert record.traits["warmth"] > 0.5 and record.traits["formality"] < 0.5
    severe = [{"seq": i, "role": "assistant", "content": r} for i, (p, _, r) in enumerate(SCRIPT) if p == SEVERE]
    bad = local_record(severe, session="s")
    assert "curt or dismissive phrasing" in {w.text for w in bad.voice_markers}
    assert bad.style.emoji > 0.5 and bad.traits["warmth"] < record.traits["warmth"] - 0.2
    state = merge_record(nova_state(), record, alpha=0.3, decay=0.8, top_k=8, now="t", reason="r")
    assert count_tokens(render_record(state, 200)) <= 200


def test_the_trace_is_drawn_as_a_png(short_tmp):
    trace = [
        {
            "exchange": i,
            "phase": "consistent" if i < 5 else "severe",
            "composite": 0.9 - 0.1 * i,
            "ewma": 0.9 - 0.05 * i,
            "applied_before": "reinforce" if i == 6 else "none",
        }
        for i in range(1, 9)
    ]
    draw_trace(trace, {"reinforce_below": 0.7, "anchor_below": 0.6, "rebase_below": 0.5}, short_tmp / "t.png")
    assert (short_tmp / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ---- the daemon ----------------------------------------------------------------------------------


def test_persona_is_initialised_from_the_workspace_and_editing_it_makes_a_new_version(nova):
    state = nova.call("persona.get")
    assert state["name"] == "Nova" and state["version"] >= 1
    assert [r["rule"] for r in state["hard_rules"]] == ["Never use emoji.", "Always answer in English."]
    readable = {t["name"]: t for t in state["readable_traits"]}
    assert readable["warmth"]["adjective"] == "warm" and readable["directness"]["adjective"] == "direct"
    assert readable["verbosity"]["adjective"] == "concise"
    assert count_tokens(state["record"]) <= 200 and "Nova" in state["record"]
    with open(nova.workspace / "IDENTITY.md", "a") as f:
        f.write("- Trait: passive / assertive 70\n")
    edited = wait_for(lambda: (s := nova.call("persona.get"))["version"] > state["version"] and s)
    traits = {t["name"]: t for t in edited["readable_traits"]}
    assert traits["passive-assertive"]["score"] == 70 and traits["passive-assertive"]["adjective"] == "assertive"
    history = nova.call("persona.history")["versions"]
    assert [v["version"] for v in history][-2:] == [state["version"], edited["version"]]
    assert history[-1]["reason"] == "the persona items changed (SOUL.md, IDENTITY.md or persona memories)"
    assert "passive-assertive" not in history[-2]["traits"]  # the previous version is kept as it was
    assert any("IDENTITY.md" in e["source"] for e in history[-1]["evidence"])
    out = CliRunner().invoke(cli, ["--socket", str(nova.socket), "persona"]).stdout
    assert "(reserved 0 - 100 warm)" in out and "assertive" in out and "Never use emoji." in out


def test_hard_rules_change_only_when_the_user_confirms(nova):
    before = nova.call("persona.get")
    prop = nova.call("persona.rules.propose", {"rule": "Never say 'As an AI'."})
    assert prop["status"] == "pending"
    unchanged = nova.call("persona.get")
    assert unchanged["version"] == before["version"] and unchanged["hard_rules"] == before["hard_rules"]
    reply = "As an AI, I can't feel tired, but I can help you plan the week."
    assert nova.call("persona.score", {"response": reply})["dimensions"]["constraint"] == 1.0
    done = nova.call("persona.rules.confirm", {"id": prop["id"]})
    assert done["status"] == "confirmed" and done["version"] == before["version"] + 1
    after = nova.call("persona.get")
    assert {"rule": "Never say 'As an AI'.", "source": "confirmed"}.items() <= after["hard_rules"][-1].items()
    score = nova.call("persona.score", {"response": reply})
    assert score["dimensions"]["constraint"] == 0.0
    assert any(r["rule"] == "Never say 'As an AI'." and r["ok"] is False for r in score["details"]["rules"])
    with pytest.raises(RpcCallError) as err:
        nova.call("persona.rules.confirm", {"id": prop["id"]})
    assert "already confirmed" in err.value.message
    with pytest.raises(RpcCallError) as err:
        nova.call("persona.rules.propose", {"rule": "Never use emoji.", "action": "remove"})
    assert "IDENTITY.md" in err.value.message  # the person's own rule is removed in their file
    removal = nova.call("persona.rules.propose", {"rule": "Never say 'As an AI'.", "action": "remove"})
    nova.call("persona.rules.reject", {"id": removal["id"]})
    assert "Never say 'As an AI'." in [r["rule"] for r in nova.call("persona.get")["hard_rules"]]
    with pytest.raises(RpcCallError) as err:
        nova.call("persona.rules.propose", {"rule": "   "})
    assert err.value.code == -32602 and "rule" in err.value.message
    # A persona memory over the socket that claims to come from IDENTITY.md is no hard rule.
    forged = nova.call(
        "memory.add", {"content": "Never mention football.", "type": "persona", "source": "IDENTITY.md#IDENTITY L9"}
    )["id"]
    assert "Never mention football." not in [r["rule"] for r in nova.call("persona.get")["hard_rules"]]
    nova.call("memory.archive", {"id": forged})


def test_every_agent_reply_is_scored_in_the_background_with_the_ewma(nova):
    session = "score-ewma"
    picked = SCRIPT[:4] + [t for t in SCRIPT if t[0] == SEVERE][:4]
    for _, user, reply in picked:
        nova.call("conversation.append", {"session": session, "role": "user", "content": user})
        answer = nova.call("conversation.append", {"session": session, "role": "assistant", "content": reply})
        assert answer["scoring_scheduled"] is True
    scores = scored(nova, session, len(picked))
    assert [s["turn_seq"] for s in scores] == [2 * i + 2 for i in range(len(picked))]
    ewma = None
    for s in scores:  # stored EWMA = 0.3 * composite + 0.7 * previous, from the first score on
        ewma = update_ewma(s["composite"], ewma, 0.3)
        assert s["ewma"] == pytest.approx(ewma, abs=2e-4)
        assert s["action"] == band(s["ewma"])
    assert all(s["composite"] > 0.8 for s in scores[:4]) and all(s["composite"] < 0.6 for s in scores[4:])
    assert scores[-1]["trend"] == "drifting" and scores[-1]["action"] != "none"
    emoji = next(s for s in scores[4:] if "🙄" in picked[scores.index(s)][2])
    assert emoji["dimensions"]["constraint"] == 0.0
    assert scores[5]["dimensions"]["relational"] < 0.5  # "Not my problem": dismissive
    # Across sessions: the namespace's history holds them too.
    assert len(nova.call("persona.scores", {"namespace": "default", "limit": 1000})["scores"]) >= len(picked)
    # Neither a session nor a namespace: the default namespace's, as `agentmemd persona scores` says.
    assert len(nova.call("persona.scores", {"limit": 1000})["scores"]) >= len(picked)


def test_grounded_is_judged_against_the_memory_pack_injected_for_that_turn(nova):
    nova.call(
        "conversation.append", {"session": "ground-bad", "role": "user", "content": "Where does my sister live again?"}
    )
    ctx = nova.call("conversation.context", {"session": "ground-bad"})
    assert ctx["pack_id"] and "Laia" in nova.call("context.explain", {"pack_id": ctx["pack_id"]})["text"]
    nova.call(
        "conversation.append",
        {
            "session": "ground-bad",
            "role": "assistant",
            "content": "Your sister Maria lives in Porto, you told me last week.",
        },
    )
    bad = scored(nova, "ground-bad", 1)[-1]
    assert bad["pack_id"] == ctx["pack_id"]
    assert bad["dimensions"]["grounded"] <= 0.3
    assert any("Laia" in c["memory"] for c in bad["details"]["grounded"]["contradictions"])
    nova.call(
        "conversation.append", {"session": "ground-ok", "role": "user", "content": "Where does my sister live again?"}
    )
    nova.call("conversation.context", {"session": "ground-ok"})
    nova.call(
        "conversation.append",
        {"session": "ground-ok", "role": "assistant", "content": "Laia lives in Lisbon. Planning a visit?"},
    )
    assert scored(nova, "ground-ok", 1)[-1]["dimensions"]["grounded"] == 1.0


def test_drift_actions_are_carried_out_by_the_context(nova):
    """The scripted conversation drifts at exchange 21 and badly at 29: the context reminds,
    anchors and rebases as the EWMA falls, and never before the drift."""
    session = "drift"
    seen: dict[str, dict] = {}
    previous = None
    for n, (phase, user, reply) in enumerate(SCRIPT[:36], start=1):
        nova.call("conversation.append", {"session": session, "role": "user", "content": user})
        ctx = nova.call("conversation.context", {"session": session, "budget_tokens": 4000})
        due, applied = ctx["drift"]["due"], ctx["drift_action"]
        if ctx["drift"]["ewma"] is not None:
            # A short burst under the agent's own level reminds before the EWMA crosses 0.7.
            expected = "reinforce" if ctx["drift"]["burst"] else band(ctx["drift"]["ewma"])
            # A rebase is done once per cool-down (anchors meanwhile); anchors need 10 turns (a reminder otherwise).
            assert due == expected or (expected == "rebase" and due == "anchor"), (n, ctx["drift"])
            assert applied == due or (due == "anchor" and applied == "reinforce"), (n, ctx["drift"])
        if phase == CONSISTENT:
            assert applied == "none", n
        assert ctx["tokens"] <= 4000
        seen.setdefault(applied, {"n": n, "ctx": ctx, "previous": previous})
        if applied == "anchor" and "anchor-in-user-turns" not in seen:  # the same moment, for a no-system API
            seen["anchor-in-user-turns"] = {
                "ctx": nova.call(
                    "conversation.context", {"session": session, "budget_tokens": 4000, "anchors_as": "user"}
                )
            }
        previous = ctx
        nova.call("conversation.append", {"session": session, "role": "assistant", "content": reply})
        scored(nova, session, n)
    assert {"reinforce", "anchor", "rebase"} <= set(seen), sorted(seen)
    reinforce = seen["reinforce"]["ctx"]
    newest_user = [m for m in reinforce["messages"] if m["role"] == "user"][-1]
    assert newest_user["content"].startswith("<persona-reminder>") and "Never use emoji" in newest_user["content"]
    assert reinforce["system"] == seen["reinforce"]["previous"]["system"]  # the stable prefix is untouched
    anchored = seen["anchor"]["ctx"]
    systems = [i for i, m in enumerate(anchored["messages"]) if m["role"] == "system"]
    turns = len(anchored["messages"]) - len(systems)
    assert turns >= 10 and len(systems) == 2
    assert [i - k for k, i in enumerate(systems)] == anchor_positions(turns)  # ~33 % and ~66 % of the turns
    assert all(50 <= count_tokens(anchored["messages"][i]["content"]) <= 100 for i in systems)
    folded = seen["anchor-in-user-turns"]["ctx"]
    assert folded["drift_action"] == "anchor" and folded["tokens"] <= 4000
    assert all(m["role"] in ("user", "assistant") for m in folded["messages"])
    carriers = [i for i, m in enumerate(folded["messages"]) if m["content"].startswith("<persona-anchor>")]
    assert carriers == folded["anchors"] and len(carriers) == 2
    assert all(folded["messages"][i]["role"] == "user" for i in carriers)
    rebased = seen["rebase"]
    runs = nova.call("conversation.status", {"session": session})["runs"]
    assert any(r["kind"] == "observe" and r["trigger"] == "forced" for r in runs)
    assert len(rebased["ctx"]["messages"]) <= 2 and rebased["ctx"]["parts"]["observations"] > 0
    assert rebased["ctx"]["system"] != rebased["previous"]["system"]  # rebuilt around the fresh observations
    # The forced compaction's persona record left the drifted replies out.
    records = nova.call("persona.records", {"limit": 100})["records"]
    low = {s["turn_seq"] for s in nova.call("persona.scores", {"session": session})["scores"] if s["composite"] < 0.6}
    assert low and all(r["record"]["turns"] <= 36 - len(low) for r in records if r["session"] == session)


def test_compaction_keeps_a_persona_record_merged_into_the_state(nova):
    session = "compact"
    for _, user, reply in SCRIPT[:10]:
        nova.call("conversation.append", {"session": session, "role": "user", "content": user})
        nova.call("conversation.append", {"session": session, "role": "assistant", "content": reply})
    scored(nova, session, 10)
    before = nova.call("persona.get")
    report = nova.call("conversation.observe", {"session": session})
    assert report["observe_runs"][0]["persona_record"] == "merged (10 agent turns)"
    record = nova.call("persona.records", {"limit": 1})["records"][-1]
    assert record["session"] == session and record["record"]["turns"] == 10
    after = nova.call("persona.get")
    assert after["version"] == before["version"] + 1 and after["reason"].startswith(f"compaction of {session}")
    for trait, observed in record["record"]["traits"].items():
        assert after["traits"][trait] == pytest.approx(0.3 * observed + 0.7 * before["traits"][trait], abs=1e-4)
    assert "collaborative ('let's', 'we')" in {w["text"] for w in after["voice_markers"]}
    assert after["evidence"] and all(e["source"].startswith(f"conversation:{session}#turn:") for e in after["evidence"])
    nova.call("conversation.append", {"session": session, "role": "user", "content": "What's next?"})
    ctx = nova.call("conversation.context", {"session": session})
    assert after["record"] in ctx["system"] and count_tokens(after["record"]) <= 200


def test_the_days_syncscore_line_is_written_to_the_workspace_log(nova):
    # A reply of its own scored today: the line does not rest on the other tests having run first.
    nova.call("conversation.append", {"session": "log-line", "role": "user", "content": "How was the trip?"})
    nova.call("persona.score", {"response": "Lovely, thanks for asking!", "session": "log-line"})
    result = nova.call("jobs.run", {"name": "daily_log"})
    assert result["status"] == "ok"
    text = (nova.workspace / "memory" / "2026-05-04.md").read_text()
    assert "### Persona" in text and "SyncScore:" in text and "replies scored" in text


def test_persona_score_refuses_bad_input_with_the_field_named(nova):
    for params, field in [
        ({"response": ""}, "response"),
        ({"response": "hi", "session": "bad one!"}, "session"),
        ({"response": "hi", "extra": 1}, "extra"),
    ]:
        with pytest.raises(RpcCallError) as err:
            nova.call("persona.score", params)
        assert err.value.code == -32602 and field in err.value.message
    nova.call("conversation.append", {"session": "ns-check", "role": "user", "content": "hi"})
    # Session ids are per namespace: "other"'s ns-check is its own, and the default's gets no score from it.
    nova.call("persona.score", {"response": "hi", "session": "ns-check", "namespace": "other"})
    assert nova.call("persona.scores", {"session": "ns-check"})["scores"] == []


def test_calibration_against_the_hand_labelled_set(short_tmp):
    report = calibrate(load_labels(LABELS), work_dir=short_tmp)
    assert report["pairs"] == 66
    for dim, r in report["dimensions"].items():
        assert r["pearson"] is not None and r["pearson"] >= 0.7, (dim, r)
    assert report["flagged"] == [] and report["composite"]["pearson"] >= 0.8
    assert report["auc_consistent_vs_drifted"] >= 0.85
    means = report["mean_composite_by_drift"]
    assert means["consistent"] > means["mild"] > means["severe"]
    bad = short_tmp / "bad.json"
    bad.write_text(
        json.dumps(
            {
                "personas": {},
                "pairs": [{"id": "x", "persona": "nobody", "drift": "odd", "response": "hi", "labels": {}}] * 2,
            }
        )
    )
    with pytest.raises(LabelsError) as err:
        load_labels(bad)
    assert "drift" in str(err.value) and "labels" in str(err.value)


# ---- the anthropic provider -----------------------------------------------------------------------


def _judge(voice: float, constraint: float = 1.0) -> str:
    return json.dumps(
        {"voice": voice, "relational": voice, "grounded": voice, "style": voice, "constraint": constraint}
    )


def test_the_anthropic_judge_uses_the_5_3_prompt_and_samples_twice_only_near_a_threshold(in_process, monkeypatch):
    with FakeAnthropic() as fake:
        monkeypatch.setenv(KEY_ENV, "test-key")
        d = in_process(
            {
                "llm": llm_config(fake),
                "persona": {"score_assistant_turns": False},
            },
            fake_embedder=True,
        )
        fake.replies.append(message(_judge(0.95)))
        far = d.call("persona.score", {"response": "Sure, Thursday at 3 works."})
        assert far["samples"] == 1 and far["composite"] == pytest.approx(0.96, abs=1e-3)
        system = fake.requests[0]["body"]["system"][0]["text"]
        assert system.startswith("Rate this agent response on 5 dimensions")
        assert "<persona_spec>" in fake.requests[0]["body"]["messages"][0]["content"]
        fake.replies.extend([message(_judge(0.68)), message(_judge(0.74))])
        near = d.call("persona.score", {"response": "Certainly, Thursday at 3 works."})
        assert near["samples"] == 2 and len(fake.requests) == 3
        assert near["dimensions"]["voice"] == pytest.approx(0.71)
        # A checkable rule is decided by the rule, whatever the judge says.
        prop = d.call("persona.rules.propose", {"rule": "Never use emoji."})
        d.call("persona.rules.confirm", {"id": prop["id"]})
        fake.replies.append(message(_judge(0.95, constraint=1.0)))
        ruled = d.call("persona.score", {"response": "Sure, Thursday at 3 works 😊"})
        assert ruled["dimensions"]["constraint"] == 0.0
        costs = d.call("costs")
        assert costs["cache"]["bypassed"] >= 4  # judgements are never cached
        assert any(r["task"] == "judge" and r["ok"] == 4 for r in costs["by_task"])


def test_the_anthropic_persona_record_is_validated_and_a_bad_one_does_not_block_the_facts(in_process, monkeypatch):
    observe = json.dumps(
        {
            "observations": [
                {
                    "priority": "MED",
                    "category": "fact",
                    "source_turns": [1],
                    "content": "Oscar is fixing a webhook retry bug.",
                }
            ]
        }
    )
    record = json.dumps(
        {
            "traits": {"warmth": 0.8, "directness": 0.9},
            "turns": 1,
            "voice_markers": [{"text": "diagnostic, collaborative ('let's')", "weight": 0.9}],
            "relational_stance": [{"text": "peer-to-peer", "weight": 1.0}],
            "formatting_prefs": [],
            "emotional_register": [],
            "style_shifts": [],
            "evidence": [{"snippet": "That retry logic is sneaky", "source": "turn:2"}],
        }
    )
    with FakeAnthropic() as fake:
        monkeypatch.setenv(KEY_ENV, "test-key")
        d = in_process(
            {
                "llm": llm_config(fake, json_repair_attempts=1),
                "persona": {"score_assistant_turns": False},
            },
            fake_embedder=True,
        )
        for session in ("good", "bad"):
            d.call(
                "conversation.append",
                {"session": session, "role": "user", "content": "The webhook retry logic keeps failing silently."},
            )
            d.call(
                "conversation.append",
                {
                    "session": session,
                    "role": "assistant",
                    "content": "That retry logic is sneaky. Let's trace the failure path.",
                },
            )
        fake.replies.extend([message(observe), message(record)])
        report = d.call("conversation.observe", {"session": "good"})
        assert report["observe_runs"][0]["persona_record"] == "merged (1 agent turns)"
        assert "Persona Preservation Record" in fake.requests[1]["body"]["system"][0]["text"]
        state = d.call("persona.get")
        assert state["traits"]["warmth"] == pytest.approx(0.3 * 0.8 + 0.7 * 0.45, abs=1e-4)
        assert "peer-to-peer" in {w["text"] for w in state["relational_stance"]}
        fake.replies.extend(
            [message(observe.replace("[1]", "[3]")), message('{"traits": "warm"}'), message("not json at all")]
        )
        report = d.call("conversation.observe", {"session": "bad"})
        assert report["observe_runs"][0]["persona_record"].startswith("failed: LLMOutputError")
        assert len(d.call("observations.list", {"session": "bad"})["observations"]) == 1
        assert d.call("persona.get")["version"] == state["version"]


DECODE = REPO.parent / "shared" / "bench" / "persona" / "decode" / "human-bot.jsonl"


def test_grounded_on_decode_flags_few_non_contradictions_and_is_mostly_right_when_it_flags(short_tmp):
    """DECODE (Nie et al. 2021), the public labelled consistency set in ../shared: the bot's earlier
    turns are the context its last turn is judged against. Low recall is known (README)."""
    from agentmemd.daemon.bench.calibrate import decode_check

    if not DECODE.exists():
        pytest.skip(f"DECODE data not found at {DECODE}: this test measures on ../shared/bench")
    report = decode_check(DECODE, limit=120, work_dir=short_tmp)
    assert report["dialogues"] == 120 and report["contradictions"] == 60
    assert report["rct_false_positive_rate"] <= 0.08
    assert report["flagged"] >= 5 and report["precision"] >= 0.7
    assert report["auc_contradiction_vs_grounded"] > 0.5


def test_a_short_burst_below_the_agents_own_level_brings_a_reminder_the_ewma_would_not():
    """Three replies in a row well under the agent's own median SyncScore bring a reminder though
    the session's EWMA stays above reinforce_below; low replies apart bring none. A daemon of its
    own: the module's, after the other tests' compactions, judges these replies otherwise."""
    with nova_daemon() as nova:
        _burst_brings_a_reminder(nova)


def _burst_brings_a_reminder(nova):
    from agentmemd.daemon.bench.drift_script import MILD

    consistent = [t for t in SCRIPT if t[0] == CONSISTENT]
    mild = [t for t in SCRIPT if t[0] == MILD]
    for _, user, reply in consistent[:12]:  # the agent's own level, in another session
        nova.call("conversation.append", {"session": "burst-level", "role": "user", "content": user})
        nova.call("conversation.append", {"session": "burst-level", "role": "assistant", "content": reply})
    scored(nova, "burst-level", 12, timeout=300)  # 12 judgements queued at once: room for a loaded machine

    def say(session: str, turns: list[tuple[str, str, str]]) -> list[dict]:
        for _, user, reply in turns:
            nova.call("conversation.append", {"session": session, "role": "user", "content": user})
            nova.call("conversation.append", {"session": session, "role": "assistant", "content": reply})
        return scored(nova, session, len(turns), timeout=300)

    apart = say("burst-apart", [consistent[0], mild[0], consistent[1], mild[1], consistent[2], mild[2]])
    assert [s["action"] for s in apart] == ["none"] * 6  # low replies apart: no burst
    # The lowest three mild replies (0.76, 0.80, 0.79): clear of the rule's bounds whatever the
    # earlier tests of this module left in the agent's level (its median ran 0.95-0.97).
    burst = say("burst", [consistent[3], mild[0], mild[3], mild[4]])
    assert [s["action"] for s in burst] == ["none", "none", "none", "reinforce"], [
        (s["composite"], s["ewma"], s["action"]) for s in burst
    ]
    assert all(s["ewma"] >= 0.7 for s in burst)  # the EWMA alone would not have acted
    assert burst[-1]["details"]["burst"]["replies"] == 3 and burst[-1]["details"]["burst"]["baseline"] > 0.9
    nova.call("conversation.append", {"session": "burst", "role": "user", "content": "Anyway, what's next today?"})
    ctx = nova.call("conversation.context", {"session": "burst", "budget_tokens": 4000})
    assert ctx["drift_action"] == "reinforce" and ctx["drift"]["burst"] is True
    assert [m for m in ctx["messages"] if m["role"] == "user"][-1]["content"].startswith("<persona-reminder>")


def test_a_trait_line_is_the_score_not_one_voice_among_the_adjectives():
    """SOUL.md's "warm" and IDENTITY.md's "Trait: warmth 30" made warmth 60: the line was averaged
    with the adjective (humor 90, with no adjective, was 90)."""
    from agentmemd.persona.identity.spec import SpecLine, parse_spec

    spec = parse_spec(
        [
            SpecLine("I am Nova, a personal assistant who is warm, direct and honest.", "SOUL.md L2", True),
            SpecLine("Trait: warmth 30", "IDENTITY.md L3", True),
        ]
    )
    assert spec.traits["warmth"] == [0.3] and spec.traits["directness"]  # the adjectives still set the rest


def test_a_voice_or_stance_the_person_takes_out_of_the_file_leaves_the_persona(in_process, short_tmp):
    """Found living with an agent: "Voice: plain, calm, no corporate filler." edited to "Voice:
    plain, calm." left "no corporate filler" in the record the prompt carries (weight 1.00, 0.80
    after a compaction): the person's word replaced learned values but never took its own back."""
    ws = short_tmp / "ws"
    ws.mkdir()
    identity = ws / "IDENTITY.md"
    identity.write_text(
        "# IDENTITY\n\n- Voice: plain, calm, no corporate filler.\n- Stance: a trusted helper, not a servant.\n"
    )
    d = in_process({"clock": {"start": "2026-11-21T09:00:00Z"}}, fake_embedder=True, workspace=ws)

    def said(field: str) -> list[str]:
        return [w["text"] for w in d.call("persona.get", {})[field]]

    assert "no corporate filler" in said("voice_markers") and "not a servant" in said("relational_stance")
    identity.write_text("# IDENTITY\n\n- Voice: plain, calm.\n- Stance: a trusted helper.\n")
    d.call("workspace.sync", {})
    assert "no corporate filler" not in said("voice_markers") and "plain" in said("voice_markers")
    assert said("relational_stance") == ["a trusted helper"]


def test_a_stance_the_persona_refuses_lowers_the_relational_score():
    """Found living with an agent: with "Stance: a trusted helper, not a servant", a servile reply
    scored relational 1.00 (the details named the stance): "not a servant" was read as a servant."""
    from agentmemd.persona.identity.state import PersonaState, Weighted
    from agentmemd.persona.syncscore.judge import _relational
    from agentmemd.persona.syncscore.stylometry import measure

    declared = PersonaState(
        namespace="d",
        relational_stance=[Weighted(text="a trusted helper", weight=1.0), Weighted(text="not a servant", weight=1.0)],
    )
    servile = measure("Whatever you wish, I am your humble servant. Your wish is my command.")
    score, notes = _relational(declared, servile)
    assert score <= 0.5 and notes["refused_stances"] == ["deferential servant"]
    assert _relational(declared, measure("Sure, the dal takes 25 minutes; start the rice first."))[0] == 1.0
    assert score < _relational(PersonaState(namespace="d"), servile)[0]  # refused weighs more than unasked
