"""The ``local`` provider: offline methods that really do each task, a lower-quality fallback.

* observe: pysbd sentence segmentation, rule-based cue detection (memory/cues.py) for
  category and priority, dates resolved against each turn's own timestamp
  (memory/dates.py), and extractive condensation (the sentence without interjections
  and filler words, attributed to its speaker). One sentence, one observation.
* reflect: embedding clustering and extraction over the current observations:
  newer preferences or decisions that revise an older one supersede it; near-duplicates
  merge; related MED/LOW observations of one speaker become one entry (three or more:
  a "recurring" pattern); then LOW and the least informative MED ones are dropped,
  oldest first, until the log is at most the target share. HIGH ones are never dropped
  unless superseded.
* summarise: the sentence that shares most content words with the others.

It does not paraphrase, resolve pronouns or understand irony; the anthropic provider does.
"""

from __future__ import annotations

import re
from datetime import datetime

import numpy as np

from agentmemd.memory.core.text import attributed, attribution, clip, clip_words, content_words
from agentmemd.memory.core.threads import yield_to_requests
from agentmemd.memory.core.tokens import count_tokens_many
from agentmemd.memory.language.cues import AGENT_UNDERTAKES, Cue, classify, condense, information, main_clause
from agentmemd.memory.language.dates import find_dates, human_date
from agentmemd.memory.language.sentences import sentences
from agentmemd.memory.llm.tasks import (
    OBSERVATION_CHARS,
    ObservationDraft,
    ObservationIn,
    ObserveResult,
    ReflectedItem,
    ReflectResult,
    SummaryResult,
    TurnIn,
)
from agentmemd.memory.retrieval.clustering import cluster
from agentmemd.memory.retrieval.constraints import states_constraint

_PRIORITY_RANK = {"HIGH": 0, "MED": 1, "LOW": 2}
# A newer statement that revises an older one ("I don't drink coffee anymore").
CHANGE_CUE = re.compile(
    r"\b(no longer|not anymore|anymore|any more|instead|switched|changed my mind|now prefer|used to|stopped|quit|"
    r"gave up|these days|now i|i now|actually prefer|rather than)\b",
    re.IGNORECASE,
)
DUPLICATE_COSINE = 0.9  # the same thing said twice
SUPERSEDE_COSINE = 0.5  # a revision is about the same thing as what it revises (and shares a word with it)
RELATED_COSINE = 0.62  # average cosine that joins observations of one speaker into one entry
MAX_ENTRY_WORDS = 40


def _speaker(content: str) -> str:
    return attribution(content)[0]


def _body(content: str) -> str:
    return attribution(content)[1]


def top_priority(priorities) -> str:
    """The highest of these priorities (HIGH > MED > LOW)."""
    return min(priorities, key=_PRIORITY_RANK.__getitem__)


class LocalProvider:
    name = "local"

    def __init__(self, embedder):
        self.embedder = embedder

    # Offline methods, no prompts: the persona's tasks are measured instead (persona/tracking/model.py).
    answers_prompts = False
    samples_judgements = False

    # ---- observe -----------------------------------------------------------------

    def observe(self, turns: list[TurnIn], *, namespace: str) -> ObserveResult:
        drafts: list[ObservationDraft] = []
        seen: set[str] = set()
        for turn in turns:
            yield_to_requests()  # the Observer runs on a background thread, in Python throughout
            said_at = datetime.fromisoformat(turn.ts)  # on the writer's clock: its dates are that day's
            for sentence in sentences(turn.content):
                if turn.role == "assistant" and not AGENT_UNDERTAKES.match(sentence.strip()):
                    continue  # the agent's claims are not evidence; what it undertakes is its own
                dates = find_dates(sentence, said_at)
                cue = classify(sentence, dated=bool(dates))
                if states_constraint(sentence):  # an allergy or a diet: a preference that matters, however short
                    text = cue.text if cue else condense(sentence)
                    cue = Cue(category="preference", priority="HIGH", information=information(text), text=text)
                if cue is None:
                    continue
                text = cue.text
                key = " ".join(content_words(text))
                if key in seen:
                    continue
                seen.add(key)
                ref = dates[0] if dates else None
                drafts.append(
                    ObservationDraft(
                        priority=cue.priority,
                        category=cue.category,
                        content=clip(attributed(turn.speaker, text), OBSERVATION_CHARS),
                        source_turns=[turn.seq],
                        referenced_date=ref.referenced if ref else None,
                        relative_date=ref.phrase if ref else None,
                    )
                )
        return ObserveResult(observations=drafts)

    # ---- reflect -----------------------------------------------------------------

    def reflect(self, observations: list[ObservationIn], *, namespace: str, target_ratio: float) -> ReflectResult:
        if not observations:
            return ReflectResult(observations=[])
        ids = [o.id for o in observations]
        by_id = {o.id: o for o in observations}
        index = {oid: i for i, oid in enumerate(ids)}
        # The observations' own words, not their memories' vectors (those also embed the whole turn).
        emb = self.embedder.embed([o.content for o in observations])
        emb = emb / np.maximum(np.linalg.norm(emb, axis=1, keepdims=True), 1e-12)
        cos = emb @ emb.T
        budget = target_ratio * sum(count_tokens_many([o.content for o in observations]))
        speakers = {oid: _speaker(by_id[oid].content) for oid in ids}

        # 1. A newer preference/decision that revises an older one of the same speaker supersedes it.
        superseded_by = _supersessions(observations, cos, speakers)
        alive = [oid for oid in ids if oid not in superseded_by]
        # 2. Near-duplicates merge into the newest of them; 3. related MED/LOW ones of a speaker join.
        groups = _near_duplicates(alive, cos, index, speakers)
        groups = self._join_related(groups, observations, emb, index, speakers)

        items = [self._entry(g, by_id, superseded_by) for g in groups]
        size = sum(count_tokens_many([it.content for it in items]))

        # 4. Over budget: drop LOW, then the least informative MED, oldest first. HIGH stays.
        def first_date(item: ReflectedItem) -> str:
            return min(by_id[s].date for s in item.sources)

        for rank in ("LOW", "MED"):
            if size <= budget:
                break
            doomed = sorted(
                (it for it in items if it.priority == rank and not it.supersedes),
                key=lambda it: (information(it.content), first_date(it)),
            )
            for it in doomed:
                if size <= budget:
                    break
                items.remove(it)
                size -= count_tokens_many([it.content])[0]
        if size > budget:  # 5. Still over: entries keep their main clause, at most MAX_ENTRY_WORDS/2 words.
            items = [
                it.model_copy(update={"content": clip_words(main_clause(it.content), MAX_ENTRY_WORDS // 2)})
                for it in items
            ]
            size = sum(count_tokens_many([it.content for it in items]))
        for similarity in (RELATED_COSINE, 0.5, 0.4):  # 6. Still over: related entries of a speaker combine.
            if size <= budget:
                break
            items = self._combine(items, emb, index, speakers, similarity, shed=size - budget)
            size = sum(count_tokens_many([it.content for it in items]))
        items.sort(key=lambda it: (first_date(it), min(index[s] for s in it.sources)))
        return ReflectResult(observations=items)

    @staticmethod
    def _join_related(
        groups: list[list[str]],
        observations: list[ObservationIn],
        emb: np.ndarray,
        index: dict[str, int],
        speakers: dict[str, str],
    ) -> list[list[str]]:
        by_id = {o.id: o for o in observations}
        joinable = [g for g in groups if all(by_id[o].priority != "HIGH" for o in g)]
        keep = [g for g in groups if g not in joinable]
        for speaker in sorted({speakers[g[0]] for g in joinable}):
            mine = [g for g in joinable if speakers[g[0]] == speaker]
            if len(mine) < 2:
                keep += mine
                continue
            centroids = np.vstack([emb[[index[o] for o in g]].mean(axis=0) for g in mine])
            joined = cluster(centroids, RELATED_COSINE, 2)
            used: set[int] = set()
            for members in joined:
                keep.append([o for m in members for o in mine[m]])
                used.update(members)
            keep += [g for i, g in enumerate(mine) if i not in used]
        return keep

    @staticmethod
    def _combine(
        items: list[ReflectedItem],
        emb: np.ndarray,
        index: dict[str, int],
        speakers: dict[str, str],
        similarity: float,
        shed: float,
    ) -> list[ReflectedItem]:
        """Join entries of one speaker whose centroids are alike: the lead entry's words, then
        the others' distinctive keywords ("Also: pottery, class, July"). Every source stays claimed.
        Stops once ``shed`` tokens are gone, so the log lands near its target, not far below."""
        out: list[ReflectedItem] = []
        for speaker in sorted({speakers[it.sources[0]] for it in items}):
            mine = [it for it in items if speakers[it.sources[0]] == speaker]
            if len(mine) < 2:
                out += mine
                continue
            centroids = np.vstack([emb[[index[s] for s in it.sources]].mean(axis=0) for it in mine])
            used: set[int] = set()
            for members in cluster(centroids, similarity, 2):
                if shed <= 0:
                    break
                used.update(members)
                group = [mine[m] for m in members]
                lead = max(group, key=lambda it: (_PRIORITY_RANK[it.priority] == 0, information(it.content)))
                lead_words = set(content_words(lead.content))
                extra = [
                    w for it in group if it is not lead for w in content_words(_body(it.content)) if w not in lead_words
                ]
                also = ", ".join(list(dict.fromkeys(extra))[:6])
                out.append(
                    ReflectedItem(
                        content=f"{lead.content}{' Also: ' + also if also else ''}",
                        priority=top_priority(it.priority for it in group),
                        category=lead.category,
                        sources=sorted(s for it in group for s in it.sources),
                        supersedes=sorted(s for it in group for s in it.supersedes),
                        referenced_date=lead.referenced_date,
                        relative_date=lead.relative_date,
                    )
                )
                shed -= sum(count_tokens_many([it.content for it in group])) - count_tokens_many([out[-1].content])[0]
            out += [it for i, it in enumerate(mine) if i not in used]
        return out

    @staticmethod
    def _entry(group: list[str], by_id: dict[str, ObservationIn], superseded_by: dict[str, str]) -> ReflectedItem:
        members = [by_id[o] for o in group]
        priority = top_priority(m.priority for m in members)
        # The entry's wording: its most informative member among the highest-priority ones.
        lead = max((m for m in members if m.priority == priority), key=lambda m: (information(m.content), m.date))
        replaced = sorted(old for old, new in superseded_by.items() if new in group)
        dated = [m for m in members if m.referenced_date]
        ref = max(dated, key=lambda m: m.date) if dated else None
        content = lead.content
        if len(members) >= 2:
            first, last = min(m.date for m in members)[:10], max(m.date for m in members)[:10]
            span = human_date(first) if first == last else f"{human_date(first)} to {human_date(last)}"
            label = "recurring" if len(members) >= 3 else "also said"
            content = f"{clip_words(content, MAX_ENTRY_WORDS)} ({label} {len(members)}x, {span})"
        return ReflectedItem(
            content=content,
            priority=priority,
            category=lead.category,
            sources=sorted(group),
            supersedes=replaced,
            referenced_date=ref.referenced_date if ref else None,
            relative_date=ref.relative_date if ref else None,
        )

    # ---- summarise -----------------------------------------------------------------

    def summarise(self, texts: list[str], *, namespace: str) -> SummaryResult:
        if not texts:
            raise ValueError("nothing to summarise")
        bags = [set(content_words(t)) for t in texts]
        shared = [sum(len(b & other) for other in bags if other is not b) for b in bags]
        best = max(range(len(texts)), key=lambda i: (shared[i], -i))
        return SummaryResult(summary=clip_words(" ".join(texts[best].split()), MAX_ENTRY_WORDS))


def _supersessions(observations: list[ObservationIn], cos: np.ndarray, speakers: dict[str, str]) -> dict[str, str]:
    """{older id: id of the newest observation that revises it} (a chain A <- B <- C maps A and B to C)."""
    superseded_by: dict[str, str] = {}
    for j, newer in enumerate(observations):
        if newer.category not in ("preference", "decision") or not CHANGE_CUE.search(newer.content):
            continue
        for i in range(j - 1, -1, -1):
            older = observations[i]
            if (
                older.id not in superseded_by
                and older.category in ("preference", "decision")
                and speakers[older.id] == speakers[newer.id]
                and cos[i, j] >= SUPERSEDE_COSINE
                and set(content_words(_body(older.content))) & set(content_words(_body(newer.content)))
            ):
                superseded_by[older.id] = newer.id
                break
    for old in list(superseded_by):
        newest = superseded_by[old]
        while newest in superseded_by:
            newest = superseded_by[newest]
        superseded_by[old] = newest
    return superseded_by


def _near_duplicates(
    alive: list[str], cos: np.ndarray, index: dict[str, int], speakers: dict[str, str]
) -> list[list[str]]:
    """Groups of one speaker's near-duplicates, the newest first in each (its wording wins)."""
    groups: list[list[str]] = []
    placed: set[str] = set()
    for oid in reversed(alive):
        if oid in placed:
            continue
        twins = [
            o
            for o in alive
            if o not in placed
            and o != oid
            and speakers[o] == speakers[oid]
            and cos[index[o], index[oid]] >= DUPLICATE_COSINE
        ]
        placed.update([oid, *twins])
        groups.append([oid, *twins])
    return groups
