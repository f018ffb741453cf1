"""`agentmemd bench identity`: does who the agent is reach the pack as its memory grows (seed 000)?

Four agents written for the bench (identity_world/: SOUL.md, IDENTITY.md and USER.md in the
relation convention, 85+ facts each, more than the persona type floor can pin), each served by
its own daemon over its own workspace. Memories that compete on the same subjects (other people's
values and stances, other households' rules, the same hobbies: identity_world/competitors.py) are
added in steps (1,000 -> 10,000 -> 100,000). At each step, for each agent:

- identity recall: the share of its 20 quiz questions (seed 000's categories: profession, values,
  stances, relationships, preferences, goals) whose answering fact is in a ``--budget``-token
  ``context.pack`` for the question;
- action alignment: the share of its 12 scripted situations whose deciding facts are all in the
  pack for the situation (situations.json, written with the persona files at hand);
- blind action alignment: the same over situations written by someone who had not read the persona
  files, the deciding facts then picked by another who read them (situations_blind.json: 11-13 an
  agent), so a request's words owe nothing to its rule's;
- fresh blind action alignment: the same over a second such set (situations_blind2.json: 9-13 an
  agent), written after the act vocabulary and its lifts were chosen, and never tuned on;

each with identity recall on ([identity] retrieval, the block of the pack) and off (the same data
dir, the daemon restarted with it off), and the pack's p50 latency for both.
"""

from __future__ import annotations

import json
import shutil
import statistics
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import tomlkit

from agentmemd.daemon.bench.benchmarks import add_with_vectors, bench_daemon, embeddings_cached
from agentmemd.daemon.bench.identity_world.competitors import competing_memories
from agentmemd.daemon.socket.client import Client

WORLD = Path(__file__).parent / "identity_world"
FILES = ("SOUL.md", "IDENTITY.md", "USER.md")


def _agents(chosen: list[str] | None) -> list[str]:
    known = sorted(p.name for p in WORLD.iterdir() if p.is_dir() and (p / "SOUL.md").exists())
    unknown = sorted(set(chosen or ()) - set(known))
    if unknown:
        raise ValueError(f"no agent {', '.join(unknown)} in {WORLD} (there are: {', '.join(known)})")
    return list(chosen) if chosen else known


def _fact_ids(client: Client) -> dict[str, str]:
    """Each workspace item's text -> its memory id (the quiz names facts by their text)."""
    out: dict[str, str] = {}
    offset = 0
    while True:
        page = client.call("memory.list", {"namespace": "default", "source": ".md", "limit": 500, "offset": offset})
        for memory in page["items"]:
            out[memory["content"]] = memory["id"]
        if len(page["items"]) < 500:
            return out
        offset += 500


def _ask(client: Client, questions: list[tuple[str, list[str]]], budget: int) -> tuple[list[bool], list[float], int]:
    """For each (query, fact ids): were all the facts in the pack; the packs' latencies (ms); and how
    many of the facts came in the identity block."""
    held, ms, in_block = [], [], 0
    for query, ids in questions:
        started = time.perf_counter()
        pack = client.call("context.pack", {"query": query, "budget_tokens": budget})
        ms.append((time.perf_counter() - started) * 1000)
        packed = {item["id"]: item["block"] for item in pack["items"]}
        held.append(all(i in packed for i in ids))
        in_block += sum(packed.get(i) == "identity" for i in ids)
    return held, ms, in_block


def _share(flags: list[bool]) -> float:
    return round(sum(flags) / len(flags), 3) if flags else 0.0


def bench_identity(args) -> dict[str, Any]:
    from agentmemd.memory.retrieval.embeddings import MiniLMEmbedder

    sizes = sorted(set(args.memories or (1000, 10000, 100000)))
    agents = _agents(args.agent)
    quiz = json.loads((WORLD / "quiz.json").read_text(encoding="utf-8"))
    situations = json.loads((WORLD / "situations.json").read_text(encoding="utf-8"))
    blind = json.loads((WORLD / "situations_blind.json").read_text(encoding="utf-8"))
    fresh = json.loads((WORLD / "situations_blind2.json").read_text(encoding="utf-8"))
    texts = competing_memories(sizes[-1])
    settings = tomllib.loads(Path(args.config_file).read_text()) if args.config_file else {}
    settings.pop("jobs", None)  # the bench's daemons run no scheduled job
    work = Path(args.work_dir) if args.work_dir else Path(tempfile.mkdtemp(prefix="amdi", dir="/tmp"))
    work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    vectors = embeddings_cached(work, MiniLMEmbedder(), texts)
    embed_seconds = round(time.monotonic() - started, 1)
    report: dict[str, Any] = {
        "budget_tokens": args.budget,
        "sizes": sizes,
        "protocol": "per agent, a daemon over its workspace (SOUL.md, IDENTITY.md, USER.md); competing memories "
        "(identity_world/competitors.py, embedded by MiniLM) added in steps; at each step the quiz and the "
        "situations asked with [identity] retrieval on, then again with the daemon restarted with it off",
        "competitor_embedding_seconds": embed_seconds,
        "settings": settings,
        "agents": {},
    }
    try:
        for agent in agents:
            report["agents"][agent] = _bench_agent(
                agent,
                work / agent,
                sizes,
                texts,
                vectors,
                quiz[agent],
                {
                    "action_alignment": situations[agent],
                    "blind_action_alignment": blind[agent],
                    # a request no line bears on is left out, as in situations_blind.json
                    "fresh_blind_action_alignment": [s for s in fresh[agent] if s["facts"]],
                },
                args.budget,
                settings,
            )
    finally:
        if not args.work_dir:
            shutil.rmtree(work, ignore_errors=True)
    report["by_size"] = _totals(report["agents"], sizes)
    return report


def _bench_agent(
    agent: str,
    root: Path,
    sizes: list[int],
    texts: list[str],
    vectors: np.ndarray,
    quiz: list[dict[str, Any]],
    situations: dict[str, list[dict[str, Any]]],  # figure name -> its situations
    budget: int,
    settings: dict[str, Any],
) -> dict[str, Any]:
    shutil.rmtree(root, ignore_errors=True)
    workspace = root / "workspace"
    workspace.mkdir(parents=True)
    for name in FILES:
        shutil.copy(WORLD / agent / name, workspace / name)
    out: dict[str, Any] = {"facts": None, "steps": []}
    stocked = 0
    fact_ids: dict[str, str] = {}
    for size in sizes:
        step: dict[str, Any] = {"memories": size}
        for mode in ("with", "without"):
            mine = {**settings, "workspace": {**settings.get("workspace", {}), "path": str(workspace)}}
            mine["identity"] = {**settings.get("identity", {}), "retrieval": mode == "with"}
            toml = tomlkit.dumps(mine)
            with bench_daemon(root, toml) as (client, _proc):
                if not fact_ids:
                    fact_ids = _fact_ids(client)
                    out["facts"] = sum("[[" in text for text in fact_ids)
                if stocked < size:
                    add_with_vectors(
                        client,
                        vectors[stocked:size],
                        lambda i, base=stocked: {"content": texts[base + i], "type": "fact", "namespace": "default"},
                    )
                    stocked = size
                questions = [(q["question"], [fact_ids[q["fact"]]]) for q in quiz]
                held, ms, in_block = _ask(client, questions, budget)
                aligned: dict[str, list[bool]] = {}
                for name, asked in situations.items():
                    acts = [(s["situation"], [fact_ids[f] for f in s["facts"]]) for s in asked]
                    aligned[name], more_ms, _ = _ask(client, acts, budget)
                    ms += more_ms
            step[mode] = {
                "identity_recall": _share(held),
                **{name: _share(flags) for name, flags in aligned.items()},
                "answers_from_identity_block": in_block,
                "pack_ms_p50": round(statistics.median(ms), 1),
                "missed": [q["question"] for q, ok in zip(quiz, held) if not ok],
                "situations_missed": [
                    s["situation"]
                    for name, flags in aligned.items()
                    for s, ok in zip(situations[name], flags)
                    if not ok
                ],
            }
        out["steps"].append(step)
    return out


def _totals(agents: dict[str, Any], sizes: list[int]) -> list[dict[str, Any]]:
    """Each size's figures over every agent's questions (each agent has as many)."""
    rows = []
    for index, size in enumerate(sizes):
        row: dict[str, Any] = {"memories": size}
        for mode in ("with", "without"):
            steps = [a["steps"][index][mode] for a in agents.values()]
            row[mode] = {
                key: round(statistics.mean(s[key] for s in steps), 3)
                for key in (
                    "identity_recall",
                    "action_alignment",
                    "blind_action_alignment",
                    "fresh_blind_action_alignment",
                    "pack_ms_p50",
                )
            }
        rows.append(row)
    return rows
