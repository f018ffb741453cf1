"""Forgetting reaches every copy: what forgetting a memory takes with it, by lineage.

A memory may have been made from conversation turns (an episode is one turn as said; an
observation or a reflection restates several). Forgetting it forgets **its words at the source**:
each of those turns becomes a tombstone in the transcript (its time and speaker kept, its text
``FORGOTTEN``, out of turn search, never read by the Observer again; its digest stays, so an app
resending the history still matches it), and a fingerprint of the words is kept so a later export,
a re-import under another key or a resent webhook stores that message as forgotten too.

Then everything derived from those words goes, however many steps away: every memory made from
those turns (their episodes, the observations and reflections of them, even those that also
restate other turns), the observation rows and the Reflector's merges of them, the consolidated
memories built from any of these, the logged packs and cached model responses that hold their
text (and the kept context builds that gave them to the agent), the impressions of the people
who said them (rebuilt from what remains), the goals' progress notes the Observer wrote from
them, and the lines of the daemon's workspace sections
that quote them. The episodes of the next turns, indexed with the forgotten words in their
neighbourhood, are indexed again without them.

What stays: the other turns of the conversation, and a person's own Markdown (an item of a
workspace file comes back at the file's next sync unless it is removed from the file).

    plan = Lineage(memories, context_turns=2).plan(chain)     # what would go (store thread)
    vectors = embedder.embed_passages(plan.texts)             # the neighbours' new index entries
    Lineage(...).write(plan, vectors, at)                     # gone (store thread, one transaction)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agentmemd.memory.core.text import attribution, episode_context
from agentmemd.memory.core.tokens import count_tokens
from agentmemd.memory.core.vocabulary import EPISODE
from agentmemd.memory.store.channel_tables import ChannelTables
from agentmemd.memory.store.database import indexed_text
from agentmemd.memory.store.lineage_tables import MIN_QUOTED, LineageTables

FORGOTTEN = "(forgotten)"  # a forgotten turn's text in the transcript
UNMERGED = "its observation is live again: the Reflector's merge of it was forgotten"


@dataclass
class LineagePlan:
    """Everything forgetting a set of memories removes, read on the store thread."""

    chains: list[list[dict[str, Any]]]  # the versions of every memory that goes
    why: dict[str, str]  # current id of each memory beyond the first -> why it goes
    turns: list[dict[str, Any]]  # turns whose words are forgotten (tombstones to be)
    observations: list[str]  # observation rows that go
    neighbours: list[dict[str, Any]] = field(default_factory=list)  # later episodes, with their new context
    impressions: list[tuple[str, str, str]] = field(default_factory=list)  # (namespace, person, audience)
    texts: list[str] = field(default_factory=list)  # the neighbours' texts to embed
    # Observations the Reflector merged into one that goes, made from turns that stay: live again.
    unmerged: list[dict[str, Any]] = field(default_factory=list)

    @property
    def every(self) -> list[str]:
        return [v["id"] for chain in self.chains for v in chain]

    @property
    def sessions(self) -> list[str]:
        return sorted({t["session"] for t in self.turns})

    def key(self) -> tuple:
        """What must not have changed between the plan and the write."""
        return (
            self.every,
            [(t["seq"], t["content"], t["deleted"]) for t in self.turns],
            self.observations,
            [(n["id"], n["context"]) for n in self.neighbours],
        )


class Lineage:
    def __init__(self, memories, context_turns: int):
        self.memories = memories
        self.history = memories.history
        self.tables = LineageTables(memories.store)
        self.channel_tables = ChannelTables(memories.store)
        self.context_turns = context_turns  # [conversation] episode_context_turns

    def plan(
        self, chains: list[list[dict[str, Any]]], why: dict[str, str], more_turns: set[int] | None = None
    ) -> LineagePlan:
        """Every copy of ``chains`` (the memories asked to go, with why each beyond the first goes);
        ``more_turns``: turns that go too, though no memory of them does (an assistant's reply that
        repeats a forgotten secret has no episode of its own)."""
        chains, why = list(chains), dict(why)
        ids = {v["id"] for chain in chains for v in chain}
        turn_seqs = set().union(*self.memories.store.turns_of(sorted(ids)).values()) | (more_turns or set())
        turns = [t for t in self.tables.turns(sorted(turn_seqs)) if not t["deleted"]]
        # The same message stored before from another phone's export (the senders named otherwise):
        # later copies become tombstones as they arrive (stay_forgotten), earlier ones go with it.
        again: set[int] = set()
        for namespace in sorted({t["namespace"] for t in turns}):
            said = [t["content"] for t in turns if t["namespace"] == namespace]
            again.update(self.tables.live_turns_saying(namespace, said, turn_seqs))
        if again:
            turn_seqs |= again
            turns = [t for t in self.tables.turns(sorted(turn_seqs)) if not t["deleted"]]
            copies = dict.fromkeys(self.tables.made_from_turns(sorted(again)), "the same message, stored again")
            self._add(chains, why, ids, copies)
        observations = self.tables.observations_of([t["session"] for t in turns], turn_seqs, ids)
        derived = {
            **dict.fromkeys(self.tables.made_from_turns(sorted(turn_seqs)), "made from the same turns"),
            **dict.fromkeys(self.tables.observation_memories(observations), "an observation of the same turns"),
        }
        while True:  # consolidated memories built from anything that goes, and what they build
            self._add(chains, why, ids, derived)
            derived = dict.fromkeys(self.tables.consolidated_from(ids), "consolidated from it")
            if not set(derived) - ids:
                break
        plan = LineagePlan(chains, why, turns, observations)
        going = set(observations)
        plan.unmerged = [r for r in self.tables.merged_into(observations) if r["id"] not in going]
        plan.impressions = sorted(
            {(t["namespace"], t["person"], t["audience"]) for t in turns if t["person"] is not None}
        )
        self._plan_neighbours(plan, ids)
        return plan

    def _add(self, chains: list, why: dict[str, str], ids: set[str], found: dict[str, str]) -> None:
        for memory_id, reason in found.items():
            if memory_id in ids:
                continue
            chain = self.history.chain(memory_id)
            if not chain:
                continue
            chains.append(chain)
            ids.update(v["id"] for v in chain)
            why.setdefault(chain[-1]["id"], reason)

    def _plan_neighbours(self, plan: LineagePlan, ids: set[str]) -> None:
        """The live episodes of the turns after each forgotten one whose neighbourhood quoted it."""
        if not self.context_turns:
            return
        gone = {t["seq"] for t in plan.turns}
        seen: set[int] = set()
        for turn in plan.turns:
            for episode in self.channel_tables.episodes_after(turn["session"], turn["seq"], self.context_turns):
                if episode["id"] in ids or episode["seq"] in seen:
                    continue
                before = self.channel_tables.said_before(turn["session"], episode["turn"], self.context_turns)
                context = episode_context(
                    [(speaker, FORGOTTEN if at in gone else said) for at, speaker, said in before]
                )
                if context != episode["context"]:
                    seen.add(episode["seq"])
                    plan.neighbours.append({**episode, "new_context": context})
                    plan.texts.append(indexed_text(episode["content"], context))

    def _unmerge(self, observations: list[dict[str, Any]], at: str) -> None:
        """The observations a forgotten merge had retired, made from turns that stay, live again with
        their memories (archived by the merge): what the Observer saw of those turns is kept, and an
        Observer run would not see them again (they count as observed)."""
        for row in observations:
            self.tables.unretire_observation(row["id"])
            found = self.memories.store.get(row["memory_id"]) if row["memory_id"] else None
            if found is not None and found[1] and not found[0]["superseded_by"]:
                self.memories.store.restore_from_archive(found[0]["seq"])
                self.history.record([(row["memory_id"], at, "restored", None, UNMERGED)])

    def write(self, plan: LineagePlan, vectors: list[np.ndarray], at: str, unwritten_packs: list[str] = ()) -> None:  # type: ignore[assignment]
        """Remove what the plan holds (inside the caller's transaction); ``unwritten_packs``: packs
        that held it and were still waiting for the pack log's writer (dropped there)."""
        versions = [v for chain in plan.chains for v in chain]
        packs = self.history.packs_holding(plan.every)
        cached = self.history.cache_entries_holding(versions, plan.turns)
        self.history.forget({t["namespace"] for t in plan.turns}, versions, packs, cached)
        # What the agent was given quoted the words in the turns' own sessions, in packs holding
        # them, and in the impressions of whoever said them (in every session they spoke in).
        hearing = self.tables.sessions_hearing(plan.impressions)
        self.tables.drop_context_copies(sorted({*plan.sessions, *hearing}), packs + list(unwritten_packs))
        self.tables.delete_observations(plan.observations)
        self._unmerge(plan.unmerged, at)
        _tombstone(self.channel_tables, [t["seq"] for t in plan.turns], at)
        by_namespace: dict[str, list[str]] = {}
        for turn in plan.turns:
            by_namespace.setdefault(turn["namespace"], []).append(turn["content"])
        for namespace, said in words_of_episodes(versions).items():  # an edited turn's earlier words
            by_namespace.setdefault(namespace, []).extend(said)
        for v in versions:  # a workspace item's words: the file's line stays, not read again unchanged
            if '"workspace"' in (v.get("tags") or ""):
                by_namespace.setdefault(v["namespace"], []).append(v["content"])
        for namespace, words in by_namespace.items():
            self.tables.remember_forgotten(namespace, words, at)
        self.tables.drop_impressions(plan.impressions)
        self.tables.drop_goal_notes(plan.every)
        self.tables.scrub_persona(plan.turns)
        # What the SyncScore records quote of them: a reply, and the memory or turn it contradicted.
        quoted = {namespace: list(said) for namespace, said in by_namespace.items()}
        for v in versions:
            quoted.setdefault(v["namespace"], []).extend([v["content"], attribution(v["content"])[1]])
        for namespace, texts in quoted.items():
            self.tables.scrub_scores(namespace, texts)
        for episode, vector in zip(plan.neighbours, vectors):
            self.channel_tables.set_context(episode["seq"], episode["new_context"], vector)


def words_of_episodes(versions: list[dict[str, Any]]) -> dict[str, list[str]]:
    """namespace -> the words each episode version among ``versions`` quotes of its turn: a turn
    edited since keeps only its new words, and its earlier ones are in its episode's older versions
    (another export of the chat may still hold them)."""
    out: dict[str, list[str]] = {}
    for version in versions:
        if version["type"] == EPISODE:
            out.setdefault(version["namespace"], []).append(attribution(version["content"])[1])
    return out


def stay_forgotten(store, namespace: str, seqs: list[int], contents: list[str], at: str) -> int:
    """Turns just stored whose words were forgotten before (an export read again under another key,
    a resent webhook, the same words said in another conversation) become tombstones at once, so no
    episode, Observer run or search sees them; how many. A turn shorter than MIN_QUOTED characters
    ("ok", "thanks!") is anyone's words and stays. Inside the caller's transaction."""
    long_enough = [(seq, words) for seq, words in zip(seqs, contents) if len(" ".join(words.split())) >= MIN_QUOTED]
    forgotten = LineageTables(store).forgotten(namespace, [w for _, w in long_enough]) if long_enough else set()
    gone = [seq for seq, words in long_enough if words in forgotten]
    _tombstone(ChannelTables(store), gone, at)
    return len(gone)


def _tombstone(tables: ChannelTables, seqs: list[int], at: str) -> None:
    """These turns' words give way to ``FORGOTTEN``, out of the index and never observed."""
    for seq in seqs:
        tables.tombstone_turn(seq, FORGOTTEN, count_tokens(FORGOTTEN), at)
