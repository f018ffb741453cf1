"""context.pack and context.explain: the candidates packed within a token budget (MMR, quotas,
one memory a turn: pack_fitting.py) and every pack logged with why each candidate was or was not
chosen (pack_log.py), so `context.explain` can say.

    query = Query.parse("where does Ana live?", clock.now())
    Packs(finder, store, config, clock, pack_log).pack(PackParams(query=query.text, budget_tokens=800), query)
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import numpy as np

from agentmemd.memory.core.clock import Clock, format_time
from agentmemd.memory.core.config import Config
from agentmemd.memory.core.disclosure import why_not
from agentmemd.memory.core.errors import NotFound
from agentmemd.memory.core.models import (
    PackItem,
    PackParams,
    PackResult,
)
from agentmemd.memory.core.signals import SIGNAL_NAMES
from agentmemd.memory.core.stopwatch import Stopwatch
from agentmemd.memory.core.text import content_words
from agentmemd.memory.core.vocabulary import EPISODE
from agentmemd.memory.retrieval.candidates import CandidateFinder, Scored
from agentmemd.memory.retrieval.decay import (
    IDENTITY_TYPES,
)
from agentmemd.memory.retrieval.pack_fitting import (
    GOALS,
    IDENTITY,
    Block,
    BlockLine,
    PackCandidate,
    block_wrapper_tokens,
    build_pack,
    render_block,
)
from agentmemd.memory.retrieval.pack_log import PackLog
from agentmemd.memory.retrieval.query import Query
from agentmemd.memory.safety.secrets import mask
from agentmemd.memory.store.database import Store


def _why_not(s: Scored, eligible: bool, chosen: bool, excluded: set[str]) -> str | None:
    """Why a candidate is not in the pack, for context.explain (None: it is), when the pack itself
    gave no reason (build_pack's ``reasons`` name the budget, a quota, a near duplicate, the floor)."""
    if chosen:
        return None
    if s.row["id"] in excluded:
        return "excluded by the caller (already in the context)"
    if not eligible:
        return f"tier {s.tier}: only active memories (and persona/relational ones) are packed"
    # Not reached by the filling pass (at most by the quotas' pass): the pack was full first.
    return "budget: the pack was full before MMR reached it"


def _log_columns(
    scored: list[Scored],
    eligible: set[str],
    mmr_rank: dict[str, int],
    chosen: set[str],
    excluded: set[str],
    why: dict[str, str],
) -> dict[str, Any]:
    """Candidates as the pack log keeps them for context.explain: one list per field (a few hundred
    dicts per pack cost more than the pack's own work; pack_log.expand makes the dicts again)."""
    ids = [s.row["id"] for s in scored]
    ranks = [mmr_rank.get(i) for i in ids]
    flags = [i in eligible for i in ids]
    return {
        "id": ids,
        "type": [s.row["type"] for s in scored],
        "tier": [s.tier for s in scored],
        "score": np.round([s.score for s in scored], 6).tolist(),
        "signals": dict(
            zip(
                SIGNAL_NAMES,
                np.round([[getattr(s.signals, n) for n in SIGNAL_NAMES] for s in scored], 6)
                .reshape(-1, len(SIGNAL_NAMES))
                .T.tolist(),
            )
        ),
        "eligible": flags,
        "mmr_rank": ranks,
        "chosen": [i in chosen for i in ids],
        "why_not": [why.get(i) or _why_not(s, ok, i in chosen, excluded) for s, i, ok in zip(scored, ids, flags)],
    }


def _best_first(s: Scored) -> tuple[float, str]:
    return (-s.score, s.row["id"])


# (namespace, query, budget tokens, listener, withheld) -> a block's lines, best first, within the
# budget: the identity graph's (persona/identity/recall.py), the goals' (persona/goals/goals.py).
# ``withheld``: the seqs of memories holding a secret the pack may not carry (never a line of it).
BlockSource = Callable[[str, str, int, "str | None", frozenset[int]], list[BlockLine]]
RECENT_TURNS_IN_IDENTITY_QUERY, RECENT_CHARS = 2, 500
WITHHELD = "holds a secret the question does not ask for: never packed unless asked (its owner asking)"
CROWDED_OUT = "its line left the pack's identity block, whose room went to the memory that best answers the request"  # the end of a long turn is what the request follows


class Packs:
    def __init__(self, finder: CandidateFinder, store: Store, config: Config, clock: Clock, pack_log: PackLog):
        self.finder = finder
        self.store = store
        self.config = config
        self.clock = clock
        self.pack_log = pack_log
        self.blocks: dict[str, BlockSource] = {}  # block name -> its lines: set by the services that own them

    def pack(self, p: PackParams, query: Query) -> PackResult:
        """``query``: ``p.query`` parsed (Query.parse)."""
        watch = Stopwatch()
        scored, _, kept_out, _, withheld = self.finder.find(
            p.namespace, query, for_pack=True, listener=p.audience, watch=watch
        )
        # Active items are pack candidates; persona/relational are pinned whatever their tier.
        excluded = set(p.exclude)
        # The identity block and the goals first, each within its share: the identity facts are not
        # packed again below.
        cfg = self.config
        # The identity query: the request with the turns just before it ("what do you think?" after
        # "they want to build a reactor nearby").
        earlier = [turn[-RECENT_CHARS:] for turn in p.recent[-RECENT_TURNS_IN_IDENTITY_QUERY:]]
        asked = " ".join([*earlier, p.query])
        identity = self._block(
            IDENTITY, p, excluded, cfg.identity.retrieval, cfg.identity.budget_share, withheld, asked
        )
        watch.lap("identity")
        goals = self._block(GOALS, p, excluded, cfg.goals.in_pack, cfg.goals.budget_share, withheld)
        watch.lap("goals")
        goals_block = render_block(GOALS, goals)
        blocks = [render_block(IDENTITY, identity), goals_block]
        block_tokens = sum(tokens for _, tokens in blocks)
        in_block = {ln.id: "in the pack's identity block (the identity graph)" for ln in identity}
        packable = [s for s in scored if s.tier == "active" or s.row["type"] in IDENTITY_TYPES]
        stood_in: dict[str, list[str]] = {}  # an episode packed instead of the cuts of its turn -> the cuts
        said_once = self._said_once(packable, excluded, stood_in)  # id -> why it is left to another of its turn
        said_once.update(in_block)
        eligible = [s for s in packable if s.row["id"] not in excluded and s.row["id"] not in said_once]
        skipped: dict[str, str] = {}  # why the pack passed over those it reached
        watch.lap("one memory a turn")
        candidates = [_candidate(s) for s in eligible]
        text, tokens, items, mmr = build_pack(candidates, p.budget_tokens - block_tokens, self.config.pack, skipped)
        # An episode that stood in for a cut of its turn's words and then did not fit: the cut,
        # shorter, says the part that answered (neither was packed otherwise).
        unfit = [e for e in stood_in if skipped.get(e, "").startswith("budget:")]
        if unfit:
            back = {cut for e in unfit for cut in stood_in[e]}
            for cut in back:
                said_once.pop(cut, None)
            eligible = [s for s in eligible if s.row["id"] not in unfit] + [
                s for s in packable if s.row["id"] in back and s.row["id"] not in excluded
            ]
            for e in unfit:
                said_once[e] = "too long for what was left; the cut of its turn that answered was packed instead"
            candidates = [_candidate(s) for s in eligible]
            skipped = {}
            text, tokens, items, mmr = build_pack(candidates, p.budget_tokens - block_tokens, self.config.pack, skipped)
        # The identity block never pushes out the memory that best answers the request: at a small
        # budget its least lines go, one at a time, until that memory fits (a 120-token pack held
        # two unrelated identity facts and no memory at all).
        best = min(candidates, key=lambda c: (-c.score, c.id), default=None)
        crowded = identity and best is not None and best.id not in {it.candidate.id for it in items}
        if crowded:  # and it would fit without the block at all (else the block keeps its lines)
            _, _, alone, _ = build_pack(candidates, p.budget_tokens - goals_block[1], self.config.pack)
            crowded = best.id in {it.candidate.id for it in alone}
        while crowded and identity and best.id not in {it.candidate.id for it in items}:
            said_once[identity[-1].id] = CROWDED_OUT
            identity = identity[:-1]
            blocks = [render_block(IDENTITY, identity), goals_block]
            block_tokens = sum(tokens for _, tokens in blocks)
            skipped = {}
            text, tokens, items, mmr = build_pack(candidates, p.budget_tokens - block_tokens, self.config.pack, skipped)
        watch.lap("packing")
        pack_id = "p" + uuid.uuid4().hex[:15]
        chosen_ids = {it.candidate.id for it in items}
        stated = self.finder.stated([s.row for s in eligible if s.row["id"] in chosen_ids])
        watch.lap("stated leaves")
        # The blocks and the pack meet at "\n": the tokens are theirs added (core/tokens.py).
        text = "\n".join(part for part in [*(t for t, _ in blocks), text] if part)
        tokens += block_tokens
        identity_items = [
            PackItem(id=ln.id, type=ln.type, score=0.0, tokens=ln.tokens, source=ln.source, block="identity")
            for ln in identity
        ]
        result_items = identity_items + [
            PackItem(
                id=it.candidate.id,
                type=it.candidate.type,
                score=it.candidate.score,
                tokens=it.tokens,
                source=it.candidate.source,
                stated=stated.get(it.candidate.id, []),
            )
            for it in items
        ]
        # The log entry, for context.explain: MMR ranks as far as the pack read the order.
        ordered_ids = [c.id for c in sorted(candidates, key=lambda c: (-c.score, c.id))]
        why = {**skipped, **said_once}
        kept = sorted(kept_out, key=_best_first)
        why.update(
            {
                s.row["id"]: WITHHELD if s.row["seq"] in withheld else why_not(p.audience or "", s.row["audience"])
                for s in kept
            }
        )
        entry = {
            "pack_id": pack_id,
            "namespace": p.namespace,
            "query": p.query,
            "audience": p.audience,
            "budget_tokens": p.budget_tokens,
            "at": format_time(self.clock.now()),
            "tokens": tokens,
            "text": text,
            "candidates": _log_columns(
                sorted(scored, key=_best_first) + kept,
                {c.id for c in candidates},
                {ordered_ids[idx]: rank for rank, idx in enumerate(mmr.picked)},
                chosen_ids,
                excluded,
                why,
            ),
            "chosen": [
                {**i.model_dump(), "mmr_rank": None, "sanitized": ln.sanitized}
                for i, ln in zip(identity_items, identity)
            ]
            + [
                {**i.model_dump(), "mmr_rank": it.mmr_rank, "sanitized": it.sanitized}
                for i, it in zip(result_items[len(identity_items) :], items)
            ],
        }
        entry["goals"] = [ln.id for ln in goals]
        watch.lap("log entry")
        entry["stages_ms"] = watch.rounded()
        if p.logged:
            self.pack_log.submit(entry)
        return PackResult(pack_id=pack_id, text=text, tokens=tokens, items=result_items, goals=entry["goals"])

    def _block(
        self,
        block: Block,
        p: PackParams,
        excluded: set[str],
        on: bool,
        share: float,
        withheld: frozenset[int],
        query: str | None = None,
    ) -> list[BlockLine]:
        """A block's lines for this request, within ``share`` of the budget (none that the caller
        already shows the model); none when it is switched off or nobody provides it."""
        source = self.blocks.get(block.name)
        room = int(p.budget_tokens * share) - block_wrapper_tokens(block)
        if source is None or not on or room <= 0:
            return []
        return [ln for ln in source(p.namespace, query or p.query, room, p.audience, withheld) if ln.id not in excluded]

    def _said_once(
        self, packable: list[Scored], excluded: set[str], stood_in: dict[str, list[str]] | None = None
    ) -> dict[str, str]:
        """What a pack leaves out so that one conversation turn is not packed twice (issue 16): an
        episode and the observations made from its turn say the same thing. id -> why.

        The pack prefers the observation: the episode goes when an observation of its turn is in
        the caller's context already, or is a candidate that says something the turn's words do
        not (a model's observation: dates resolved, names made explicit). An observation that is
        only a cut of the turn's words (the local Observer's sentences) goes instead, since the
        episode says all it says: packing the cut measured 0.10 less answer coverage on LoCoMo."""
        if not any(s.row["type"] == EPISODE for s in packable):
            return {}
        turns = self.store.turns_of([s.row["id"] for s in packable])
        observations: dict[int, list[Scored]] = {}  # turn -> the observations made from it
        for s in packable:
            if s.row["type"] != EPISODE:
                for turn in turns.get(s.row["id"], ()):
                    observations.setdefault(turn, []).append(s)
        out: dict[str, str] = {}
        for episode in (s for s in packable if s.row["type"] == EPISODE):
            episode_id = episode.row["id"]
            linked = [o for t in sorted(turns.get(episode_id, ())) for o in observations.get(t, [])]
            if not linked:
                continue  # no observation of it: the pack falls back to the episode
            said = set(content_words(episode.row["content"]))
            cuts = [o for o in linked if set(content_words(o.row["content"])) <= said and o.row["id"] not in excluded]
            cut_ids = {o.row["id"] for o in cuts}
            preferred = [o for o in linked if o.row["id"] in excluded] or [
                o for o in linked if o.row["id"] not in cut_ids
            ]
            if preferred:
                best = max(preferred, key=lambda o: o.score).row["id"]
                out[episode_id] = f"its turn is said by observation {best}, which the pack prefers"
            if cuts and not preferred and stood_in is not None:
                stood_in[episode_id] = [o.row["id"] for o in cuts]
            for o in cuts:
                out.setdefault(o.row["id"], f"a cut of the words of episode {episode_id}, which says all it says")
                if o.current and o.signals.similarity > episode.signals.similarity:
                    # The cut held a fact slot's current value (candidates._lift_current): the episode
                    # that stands in for it holds it too, and is as relevant as the cut was.
                    episode.signals.slot += o.signals.similarity - episode.signals.similarity
                    episode.signals.similarity = o.signals.similarity
                    episode.score = max(episode.score, o.score)
                    episode.slot, episode.current = o.slot, True
        return out

    def explain(self, pack_id: str, namespace: str | None = None) -> dict[str, Any]:
        """A logged pack with each candidate's text as stored now, masked as a search masks it
        unless the pack carried it (a candidate left out for its secret shows no secret)."""
        entry = self.pack_log.entry(pack_id)
        if entry is None or (namespace is not None and entry["namespace"] != namespace):
            cfg = self.config.pack
            raise NotFound(
                f"no pack with id {pack_id!r}{f' in namespace {namespace!r}' if namespace else ''} in the pack log, which keeps the newest {cfg.log_keep_packs} packs "
                f"for {cfg.log_keep_days:g} days ([pack] log_keep_packs, log_keep_days): it may be past that",
                {"pack_id": pack_id},
            )
        # Each candidate's text as stored now (the log keeps ids): None for one forgotten since.
        texts = self.store.contents_of([c["id"] for c in entry["candidates"]])
        known = self.finder.known_secrets.of(entry["namespace"])
        shown = {
            c["id"]: text if c.get("chosen") else mask(text, entry["query"], known)
            for c in entry["candidates"]
            if (text := texts.get(c["id"])) is not None
        }
        return {**entry, "candidates": [{**c, "content": shown.get(c["id"])} for c in entry["candidates"]]}


def _candidate(s: Scored) -> PackCandidate:
    return PackCandidate(
        id=s.row["id"],
        type=s.row["type"],
        score=round(s.score, 6),
        content=s.row["content"],
        content_tokens=s.row["token_len"],
        source=s.row["source"],
        created=s.row["created"],
        vector=s.vector,
        similarity=s.signals.similarity,
    )
