"""`agentmemd bench society`: many agents in one daemon, over a scripted season (seeds 000, 003, 004).

The world (society_world/world.json, written for the bench): eight agents of an island town, each
its own namespace with its SOUL.md lines (persona memories in the relation convention), goals and,
as the season goes, impressions of the others. Six rounds of one-on-one and group chats, played
through the daemon's public methods only (``channels.ingest`` into every member's namespace, the
Observer run with ``conversation.observe``, goals finished with ``goal.done``); private promises,
alliances that change, two secrets each told to one agent in a private chat, and two agents who
speak out of character for a while. No language model: the script is the conversation.

After each round, per agent:

- identity recall: the share of its quiz questions whose answering SOUL line is in a
  ``--budget``-token ``context.pack`` for the question;
- goal recall: the share of its open goals in the pack's goals for a request that should bring
  each to mind; a finished goal that still shows is counted apart (``stale_goals``);
- impression accuracy: the share of the script's truths ("Tomas cares about a fair price for
  fish", said to Ines by then) that the agent's impressions of that person (``people.get``) hold;
- ally recall: whether the pack for "who are you working with now?" names the current ally;
- disclosure leaks: a secret's marker word anywhere an agent who was not told could read it (its
  packs, searches and raw turns), or in what the teller and the told hear in a group chat
  (``conversation.context`` of the group's session, ``context.pack`` and ``people.get`` for the
  group's audience). The owner of the private chat reading it back is counted too (``secrets_kept``),
  so the check can fail;
- drift: each of the agent's own messages scored by ``persona.score``; the actions taken on the
  messages the script wrote out of character, and on the others (false alarms);
- drift bursts, after the season (society_world/bursts*.json, three sets each written by someone
  who had not seen the scorer nor the other sets): private chats where one agent replies in character twice and then three or four
  times in a row out of character, and chats of the same shape all in character. A burst counts
  as caught when any reply of its run brings an action; an action on an in-character reply of a
  steady chat, or before a run begins, is a false alarm;
- pack latency (p50 / p95 over the round's packs) as each namespace grows: ``--filler`` competing
  memories (identity_world/competitors.py) are added to every agent each round.
"""

from __future__ import annotations

import json
import shutil
import statistics
import tempfile
import time
import tomllib
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import tomlkit

from agentmemd.daemon.bench.benchmarks import add_with_vectors, bench_daemon, embeddings_cached
from agentmemd.daemon.bench.identity_world.competitors import competing_memories
from agentmemd.daemon.socket.client import Client
from agentmemd.memory.core.errors import NotFound

WORLD = Path(__file__).parent / "society_world" / "world.json"
# Burst chats played after the season, in this order; each set reported on its own. The second was
# written after the own-voice rule was first chosen on the first; the third after the rule was
# changed (on the first), to measure it on chats no rule was chosen with.
BURST_SETS = {
    name: Path(__file__).parent / "society_world" / f"{name}.json"
    for name in ("bursts", "bursts_held_out", "bursts_third")
}
CHANNEL = "society"


def load_world(path: Path = WORLD) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def load_bursts() -> dict[str, list[dict[str, Any]]]:
    """Each burst set's chats, by the set's name."""
    return {name: json.loads(path.read_text(encoding="utf-8"))["chats"] for name, path in BURST_SETS.items()}


def soul_items(soul: str) -> list[str]:
    """The SOUL.md's list items, as the workspace indexer would store them (the text after "- ")."""
    return [line[2:].strip() for line in soul.splitlines() if line.startswith("- ") and line[2:].strip()]


def _share(flags: list[bool]) -> float | None:
    return round(sum(flags) / len(flags), 3) if flags else None


class Season:
    """The season played against one daemon, and what each check found."""

    def __init__(self, client: Client, world: dict[str, Any], budget: int):
        self.client = client
        self.world = world
        self.budget = budget
        self.agents = {a["id"]: a for a in world["agents"]}
        self.names = {a["id"]: a["name"] for a in world["agents"]}
        self.start = datetime.fromisoformat(world["start"]).replace(hour=9, tzinfo=timezone.utc)
        self.soul_ids: dict[str, dict[str, str]] = {}  # agent -> SOUL item text -> memory id
        self.goal_ids: dict[str, list[tuple[dict[str, Any], str]]] = {}
        self.sessions: dict[tuple[str, str], list[str]] = {}  # (agent, chat id) -> its sessions
        self.audiences: dict[str, str] = {}  # chat id -> the audience of what is said there
        self.chat_round: dict[str, int] = {}
        self.members: dict[str, list[str]] = {}
        self.pack_ms: list[float] = []
        # agent -> "drift" / "in_character" -> (action, composite) of each of its messages scored
        self.drift: dict[str, dict[str, list[tuple[str, float]]]] = {
            a: {"drift": [], "in_character": []} for a in self.agents
        }

    # ---- set-up ----------------------------------------------------------------------------------

    def set_up(self) -> None:
        for agent, a in self.agents.items():
            items = soul_items(a["soul"])
            added = self.client.call(
                "memory.add_many",
                {"items": [{"content": t, "type": "persona", "namespace": agent, "source": "SOUL.md"} for t in items]},
            )
            self.soul_ids[agent] = dict(zip(items, added["ids"]))
            self.goal_ids[agent] = [
                (g, self.client.call("goal.add", _goal_params(g, agent))["id"]) for g in a.get("goals", [])
            ]

    # ---- a round ---------------------------------------------------------------------------------

    def play(self, round_: dict[str, Any]) -> None:
        r = round_["round"]
        day = self.start + timedelta(days=r - 1)
        for c_index, chat in enumerate(round_["chats"]):
            self.chat_round[chat["id"]] = r
            self._ingest(chat, day + timedelta(minutes=40 * c_index))
            self._score_own_messages(chat)
        for agent, goals in self.goal_ids.items():
            for goal, goal_id in goals:
                if goal.get("done_round") == r:
                    self.client.call("goal.done", {"id": goal_id, "namespace": agent})

    def play_bursts(self, chats: list[dict[str, Any]], day: int) -> dict[str, Any]:
        """The burst chats on the season's ``day`` (its first is 1), each scored reply by reply in
        its speaker's session; what the tracked agent's replies brought (the module's docstring)."""
        at = self.start + timedelta(days=day - 1)
        caught, bursts, alarms, steady = [], [], 0, 0
        for c_index, chat in enumerate(chats):
            self._ingest(chat, at + timedelta(minutes=40 * c_index))
            actions = self._score_own_messages(chat, season=False)
            tracked = [(m["drift"], a) for m, a in zip(chat["messages"], actions) if m["from"] == chat["agent"]]
            first = next((i for i, (drift, _) in enumerate(tracked) if drift), len(tracked))
            before = tracked[:first] if any(drift for drift, _ in tracked) else tracked
            steady += len(before)
            alarms += sum(a != "none" for _, a in before)
            if first < len(tracked):
                run = [a for drift, a in tracked[first:] if drift]
                bursts.append(chat["id"])
                if any(a != "none" for a in run):
                    caught.append(chat["id"])
        return {
            "bursts_acted_on": f"{len(caught)} of {len(bursts)}",
            "bursts_missed": [b for b in bursts if b not in caught],
            "in_character_replies_acted_on": f"{alarms} of {steady}",
        }

    def _ingest(self, chat: dict[str, Any], at: datetime) -> None:
        """The chat into every member's namespace (its messages two minutes apart from ``at``), each
        session observed."""
        self.members[chat["id"]] = chat["members"]
        messages = [
            {
                "sender": self.names[m["from"]],
                "sender_id": m["from"],
                "ts": (at + timedelta(minutes=2 * i)).isoformat(),
                "text": m["text"],
                "line": i + 1,
                "message_id": f"{chat['id']}-{i + 1}",
            }
            for i, m in enumerate(chat["messages"])
        ]
        for member in chat["members"]:
            got = self.client.call(
                "channels.ingest",
                {
                    "channel": CHANNEL,
                    "chat_id": chat["id"],
                    "title": chat["title"],
                    "kind": chat["kind"],
                    "messages": messages,
                    "owner": member,
                    "tz": "UTC",
                    "namespace": member,
                },
            )
            self.sessions[(member, chat["id"])] = got["sessions"]
            self.audiences[chat["id"]] = got["audience"]
            for session in got["sessions"]:
                self.client.call("conversation.observe", {"session": session, "namespace": member})

    def _score_own_messages(self, chat: dict[str, Any], season: bool = True) -> list[str]:
        """Each message scored by SyncScore in its speaker's own namespace, as the agent's reply;
        the action each brought (kept in the season's drift figures unless ``season`` is false)."""
        actions = []
        for m in chat["messages"]:
            agent = m["from"]
            session = self.sessions[(agent, chat["id"])][-1]
            scored = self.client.call("persona.score", {"response": m["text"], "session": session, "namespace": agent})
            if season:
                kind = "drift" if m.get("drift") else "in_character"
                self.drift[agent][kind].append((scored["action"], scored["composite"]))
            actions.append(scored["action"])
        return actions

    # ---- the checks ------------------------------------------------------------------------------

    def _person_heard(self, agent: str, person: str, audience: str) -> dict[str, Any] | None:
        """What a conversation of ``audience`` hears of a person (people.get); None for one it never
        heard (the daemon answers as if there were no such person)."""
        try:
            return self.client.call("people.get", {"person": person, "namespace": agent, "audience": audience})
        except NotFound:
            return None

    def pack(self, agent: str, query: str, audience: str | None = None) -> dict[str, Any]:
        params: dict[str, Any] = {"query": query, "budget_tokens": self.budget, "namespace": agent}
        if audience:
            params["audience"] = audience
        started = time.perf_counter()
        pack = self.client.call("context.pack", params)
        self.pack_ms.append((time.perf_counter() - started) * 1000)
        return pack

    def identity_recall(self, agent: str) -> tuple[float | None, list[str]]:
        held, missed = [], []
        for q in self.agents[agent]["quiz"]:
            line = next(t for t in self.soul_ids[agent] if q["answer"] in t and "[[" in t)
            ids = {i["id"] for i in self.pack(agent, q["question"])["items"]}
            held.append(self.soul_ids[agent][line] in ids)
            if not held[-1]:
                missed.append(q["question"])
        return _share(held), missed

    def goal_recall(self, agent: str, r: int) -> tuple[float | None, int]:
        held, stale = [], 0
        for goal, goal_id in self.goal_ids[agent]:
            shown = set(self.pack(agent, goal["request"])["goals"])
            finished = goal.get("done_round") is not None and goal["done_round"] <= r
            if finished:
                stale += goal_id in shown
            else:
                held.append(goal_id in shown)
        return _share(held), stale

    def impression_accuracy(self, agent: str, r: int) -> tuple[float | None, list[str]]:
        truths = [t for t in self.world["impressions"] if t["by"] == agent and t["round"] <= r]
        if not truths:
            return None, []
        people = {p["name"]: p["id"] for p in self.client.call("people.list", {"namespace": agent})["people"]}
        held, missed = [], []
        for t in truths:
            person = people.get(self.names[t["of"]])
            said = ""
            if person:
                got = self.client.call("people.get", {"person": person, "namespace": agent})
                said = json.dumps([i["content"] for i in got["impressions"]], ensure_ascii=False).lower()
            held.append(t["cares_about"].lower() in said)
            if not held[-1]:
                missed.append(f"{self.names[t['of']]}: {t['cares_about']}")
        return _share(held), missed

    def ally_recall(self, agent: str, r: int) -> bool | None:
        """Does the pack for "who are you working with now?" hold what was said in the private chat
        where the current alliance was agreed (every agent's SOUL names the others, so a name alone
        would prove nothing)?"""
        current = [a for a in self.world["alliances"] if a["agent"] == agent and a["round"] <= r]
        if not current:
            return None
        latest = max(current, key=lambda a: a["round"])
        pair = {agent, latest["ally"]}
        agreed = next(
            c
            for round_ in self.world["rounds"]
            if round_["round"] == latest["round"]
            for c in round_["chats"]
            if c["kind"] == "private" and set(c["members"]) == pair
        )
        items = self.pack(agent, self.agents[agent]["alliance_question"])["items"]
        return any((i.get("source") or "").startswith(f"conversation:{agreed['id']}:") for i in items)

    def leaks(self, r: int) -> tuple[list[str], int, int]:
        """Where a secret told by round ``r`` was found that it must not be; how many places were
        looked at; and how many of its owners' own reads found it (the check can fail)."""
        found, looked, kept = [], 0, 0
        for secret in (s for s in self.world["secrets"] if s["round"] <= r):
            marker = secret["marker"].lower()
            knowing = {secret["teller"], *secret["told"]}
            for agent in self.agents:
                if agent in knowing:
                    kept += self._owner_finds(agent, secret)
                    for chat_id, where in self._groups_of(agent, r, secret["question"]):
                        looked += 1
                        if marker in where().lower():
                            found.append(f"{secret['marker']} heard by {agent} in group {chat_id}")
                else:
                    for label, read in self._everything(agent, secret):
                        looked += 1
                        if marker in read().lower():
                            found.append(f"{secret['marker']} reached {agent} through {label}")
        return found, looked, kept

    def _owner_finds(self, agent: str, secret: dict[str, Any]) -> bool:
        hits = self.client.call("conversation.search", {"query": secret["marker"], "namespace": agent})
        return any(secret["marker"].lower() in h["content"].lower() for h in hits["turns"])

    def _everything(self, agent: str, secret: dict[str, Any]):
        """What an agent who was not told can read, by every door's method."""
        yield "context.pack", lambda: self.pack(agent, secret["question"])["text"]
        yield (
            "memory.search",
            lambda: json.dumps(
                self.client.call("memory.search", {"query": secret["marker"], "namespace": agent, "k": 20})
            ),
        )
        yield (
            "conversation.search",
            lambda: json.dumps(
                self.client.call("conversation.search", {"query": secret["marker"], "namespace": agent})
            ),
        )

    def _groups_of(self, agent: str, r: int, question: str):
        """For each group chat the agent is in (any round so far): what that group's audience hears,
        asked ``question`` (the secret's, without its word)."""
        for chat_id, members in self.members.items():
            if agent not in members or self.chat_round[chat_id] > r or not self.audiences[chat_id].startswith("group"):
                continue
            audience = self.audiences[chat_id]
            session = self.sessions[(agent, chat_id)][-1]

            def heard(session=session, audience=audience) -> str:
                context = self.client.call(
                    "conversation.context", {"session": session, "budget_tokens": 4000, "namespace": agent}
                )
                pack = self.pack(agent, question, audience)
                people = self.client.call("people.list", {"namespace": agent})["people"]
                impressions = [found for p in people if (found := self._person_heard(agent, p["id"], audience))]
                return json.dumps([context, pack["text"], impressions], ensure_ascii=False)

            yield chat_id, heard


def _goal_params(goal: dict[str, Any], agent: str) -> dict[str, Any]:
    params = {"text": goal["text"], "priority": goal["priority"], "namespace": agent}
    if goal.get("trigger"):
        params["trigger"] = goal["trigger"]
    return params


def bench_society(args) -> dict[str, Any]:
    from agentmemd.memory.retrieval.embeddings import MiniLMEmbedder

    world = load_world(Path(args.world) if getattr(args, "world", None) else WORLD)
    rounds = world["rounds"]
    filler = args.filler
    texts = competing_memories(filler * len(rounds)) if filler else []
    settings = tomllib.loads(Path(args.config_file).read_text()) if args.config_file else {}
    settings.pop("jobs", None)
    work = Path(args.work_dir) if args.work_dir else Path(tempfile.mkdtemp(prefix="amds", dir="/tmp"))
    work.mkdir(parents=True, exist_ok=True)
    vectors = embeddings_cached(work, MiniLMEmbedder(), texts) if texts else np.zeros((0, 384), np.float32)
    settings["clock"] = {"start": f"{world['start']}T08:00:00Z"}
    report: dict[str, Any] = {
        "agents": len(world["agents"]),
        "rounds": len(rounds),
        "budget_tokens": args.budget,
        "filler_per_agent_per_round": filler,
        "settings": {k: v for k, v in settings.items() if k != "clock"},
        "protocol": "one daemon, a namespace per agent; each round's chats ingested into every member's "
        "namespace (channels.ingest), observed, scored (persona.score), then each agent's checks",
        "by_round": [],
    }
    root = work / "daemon"
    shutil.rmtree(root, ignore_errors=True)
    try:
        with bench_daemon(root, tomlkit.dumps(settings)) as (client, _proc):
            season = Season(client, world, args.budget)
            season.set_up()
            for index, round_ in enumerate(rounds):
                client.call("clock.advance", {"hours": 24 if index else 1})
                season.play(round_)
                if filler:
                    for agent in season.agents:
                        add_with_vectors(
                            client,
                            vectors[index * filler : (index + 1) * filler],
                            lambda i, base=index * filler, ns=agent: {
                                "content": texts[base + i],
                                "type": "fact",
                                "namespace": ns,
                            },
                        )
                report["by_round"].append(_check_round(client, season, round_["round"]))
            report["drift"] = {agent: _drift_of(d) for agent, d in season.drift.items()}
            report["drift_bursts"] = {}
            for day, (name, chats) in enumerate(load_bursts().items(), start=len(rounds) + 1):
                client.call("clock.advance", {"hours": 24})
                report["drift_bursts"][name] = season.play_bursts(chats, day)
    finally:
        if not args.work_dir:
            shutil.rmtree(work, ignore_errors=True)
    report["season"] = _season_totals(report)
    return report


def _check_round(client: Client, season: Season, r: int) -> dict[str, Any]:
    season.pack_ms = []
    stats = client.call("stats")
    agents: dict[str, Any] = {}
    for agent in season.agents:
        recall, missed = season.identity_recall(agent)
        goals, stale = season.goal_recall(agent, r)
        impressions, wrong = season.impression_accuracy(agent, r)
        agents[agent] = {
            "identity_recall": recall,
            "goal_recall": goals,
            "stale_goals": stale,
            "impression_accuracy": impressions,
            "ally_recall": season.ally_recall(agent, r),
            "missed": missed,
            "impressions_missed": wrong,
        }
    leaks, looked, kept = season.leaks(r)
    ms = sorted(season.pack_ms)
    return {
        "round": r,
        "memories": stats["live"],
        "leaks": leaks,
        "leak_checks": looked,
        "secrets_kept_by_their_owners": kept,
        "pack_ms_p50": round(statistics.median(ms), 1),
        "pack_ms_p95": round(ms[int(0.95 * (len(ms) - 1))], 1),
        "agents": agents,
        "mean": {
            key: _mean([a[key] for a in agents.values()])
            for key in ("identity_recall", "goal_recall", "impression_accuracy", "ally_recall")
        },
    }


def _drift_of(scored: dict[str, list[tuple[str, float]]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kind in ("drift", "in_character"):
        out[f"{kind}_messages"] = len(scored[kind])
        out[f"{kind}_acted_on"] = sum(action != "none" for action, _ in scored[kind])
        out[f"{kind}_mean_syncscore"] = _mean([composite for _, composite in scored[kind]])
    return out


def _mean(values: list[Any]) -> float | None:
    known = [float(v) for v in values if v is not None]
    return round(statistics.mean(known), 3) if known else None


def _season_totals(report: dict[str, Any]) -> dict[str, Any]:
    rounds = report["by_round"]
    drift = report.get("drift", {})
    return {
        "leaks": sum(len(r["leaks"]) for r in rounds),
        "leak_checks": sum(r["leak_checks"] for r in rounds),
        "identity_recall_last_round": rounds[-1]["mean"]["identity_recall"] if rounds else None,
        "impression_accuracy_last_round": rounds[-1]["mean"]["impression_accuracy"] if rounds else None,
        "goal_recall_last_round": rounds[-1]["mean"]["goal_recall"] if rounds else None,
        "stale_goals": sum(a["stale_goals"] for r in rounds for a in r["agents"].values()),
        "drift_messages_acted_on": f"{sum(d['drift_acted_on'] for d in drift.values())} of "
        f"{sum(d['drift_messages'] for d in drift.values())}",
        "in_character_acted_on": f"{sum(d['in_character_acted_on'] for d in drift.values())} of "
        f"{sum(d['in_character_messages'] for d in drift.values())}",
        "mean_syncscore_drift_vs_in_character": [
            _mean([d["drift_mean_syncscore"] for d in drift.values() if d["drift_messages"]]),
            _mean([d["in_character_mean_syncscore"] for d in drift.values() if d["drift_messages"]]),
        ],
        "drift_bursts_acted_on": {name: b["bursts_acted_on"] for name, b in report.get("drift_bursts", {}).items()},
        "burst_chats_in_character_acted_on": {
            name: b["in_character_replies_acted_on"] for name, b in report.get("drift_bursts", {}).items()
        },
        "pack_ms_p50_first_last": [rounds[0]["pack_ms_p50"], rounds[-1]["pack_ms_p50"]] if rounds else None,
    }
