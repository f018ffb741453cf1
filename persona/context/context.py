"""The stable context for a model call (seed 002, 5.4 Strategy A "conversation rebase", R6).

    system   = persona contract + observation log        <- the stable, cacheable prefix
    messages = the last turns not yet observed, oldest first
               the newest user turn carries the Memory Pack for it, at the very end

The prefix depends only on the namespace's persona memories, the session's live
observations and the budget: it is byte-identical from call to call until the Observer
or Reflector changes the observations (nothing in it is phrased relative to "now"), so a
provider's prompt cache keeps hitting. ``prefix_hash`` is the SHA-256 of exactly that text.

Budget (one token counter): the prefix gets at most ``system_share``; the turns take what
they need up to ``history_share`` plus whatever the prefix left; the Memory Pack gets the
rest. The whole never exceeds the budget.

The persona part of the prefix is the latest Persona Preservation Record (PersonaState,
~200 tokens, seed 002 5.2); without a PersonaState, the persona memories that fit.

Drift actions (seed 002, 5.3/5.4), chosen from the session's SyncScore EWMA by the caller:
``reinforce`` puts a persona reminder with the newest user turn; ``anchor`` inserts
persona anchor messages (role ``system``) at ~33 % and ~66 % of the turns (with
``anchors_as="user"``, wrapped in ``<persona-anchor>`` at the start of the first user turn
from there, for APIs without mid-conversation system messages), or a reminder when there
are fewer than ``anchor_min_turns``; ``rebase`` is called after a forced
compaction, so the context is rebuilt from the fresh prefix plus the last
``keep_recent_turns`` raw turns. None of them changes the stable prefix.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from agentmemd.memory.conversation.observation_log import fit_observations
from agentmemd.memory.core.models import PackParams
from agentmemd.memory.core.tokens import count_tokens
from agentmemd.memory.safety.neutraliser import as_data, as_data_lines
from agentmemd.memory.safety.secrets import mask
from agentmemd.persona.drift.anchors import anchor, anchor_positions, reminder

PERSONA_HEADER = "# Who you are\n"


def clip_to_tokens(text: str, limit: int) -> str:
    """The longest prefix of ``text`` (cut at a space) within ``limit`` tokens, marked with '…'."""
    if count_tokens(text) <= limit:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count_tokens(text[:mid] + " …") <= limit:
            lo = mid
        else:
            hi = mid - 1
    cut = text[:lo].rsplit(" ", 1)[0] if " " in text[:lo] else text[:lo]
    return cut + " …" if cut else ""


def persona_contract(
    persona: list[dict[str, Any]], budget: int, record: str = "", record_limit: int | None = None
) -> tuple[str, list[str]]:
    """The persona part of the prefix; (text, the persona memory ids it shows).

    With a Persona Preservation Record (PersonaState's, made from these same persona items and the
    agent's replies) the record alone, always, even past ``budget`` (the record is the one part of
    the prefix that must be there), clipped only to ``record_limit``; listing the items again would
    repeat it. Without one, the persona memories that fit ``budget``, highest priority first."""
    text, ids = PERSONA_HEADER, []
    if record:  # the record stands for the persona items, so the pack need not repeat them
        limit = record_limit if record_limit is not None else budget
        body = clip_to_tokens(as_data_lines(record), max(0, limit - count_tokens(text + "\n\n")))
        return (text + body + "\n\n", [r["id"] for r in persona]) if body else ("", [])
    for row in sorted(persona, key=lambda r: (-r["priority"], r["id"])):
        line = f"- {as_data(row['content']).text}\n"
        if count_tokens(text + line) > budget:
            break
        text += line
        ids.append(row["id"])
    return (text + "\n", ids) if text != PERSONA_HEADER else ("", [])


def fit_turns(turns: list[dict[str, Any]], budget: int) -> tuple[list[dict[str, Any]], int]:
    """The newest turns that fit the budget, oldest first, and their tokens."""
    chosen: list[dict[str, Any]] = []
    used = 0
    for turn in reversed(turns):
        if used + turn["tokens"] > budget:
            break
        chosen.append(turn)
        used += turn["tokens"]
    chosen.reverse()
    if not chosen and turns and budget > 2:  # the newest turn alone is too long: its start, clipped
        newest = dict(turns[-1])
        newest["content"] = clip_to_tokens(newest["content"], budget)
        chosen, used = [newest], count_tokens(newest["content"])
    return chosen, used


def place_anchors(messages: list[dict[str, str]], anchor_text: str, min_turns: int, anchors_as: str) -> list[int]:
    """Put persona anchors into the messages (in place); returns where they went."""
    positions = anchor_positions(len(messages), min_turns)
    if anchors_as != "user":
        for at in reversed(positions):
            messages.insert(at, {"role": "system", "content": anchor_text})
        return positions
    # APIs without mid-conversation system messages: the anchor rides on a user turn, the first
    # one at or after each position, never the newest one.
    last_user = max((i for i, m in enumerate(messages) if m["role"] == "user"), default=-1)
    carriers: list[int] = []
    for at in positions:
        i = next((j for j in range(at, last_user) if messages[j]["role"] == "user" and j not in carriers), None)
        if i is not None:
            carriers.append(i)
    for i in carriers:
        messages[i] = {
            "role": "user",
            "content": f"<persona-anchor>{anchor_text}</persona-anchor>\n\n{messages[i]['content']}",
        }
    return carriers


MEMORIES_OPEN, MEMORIES_CLOSE = "<memories>\n", "\n</memories>\n\n"
TOOL_OUTPUT_OPEN, TOOL_OUTPUT_CLOSE = "<tool-output>\n", "\n</tool-output>"


def with_speakers(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The turns of a conversation with more than one person in it (a group, a chat between two
    people the agent reads) as ``Name: text``, so the model knows who said what: the chat APIs
    give all of them the one role ``user``. An app's own conversation (one user, the assistant)
    is left as it is."""
    people = {t["speaker"] for t in turns if t["role"] == "user"}
    if len(people) < 2 and not any(t.get("person") for t in turns):
        return turns
    named = []
    for turn in turns:
        if turn["role"] == "user" and turn.get("speaker"):
            content = f"{turn['speaker']}: {turn['content']}"
            turn = {**turn, "content": content, "tokens": count_tokens(content)}
        named.append(turn)
    return named


def as_message(turn: dict[str, Any]) -> dict[str, str]:
    """A stored turn as a context message. A tool's output goes back on the user side (where the
    APIs carry it) but marked and neutralised as data: it is not the user's words."""
    if turn["role"] == "tool":
        return {"role": "user", "content": f"{TOOL_OUTPUT_OPEN}{as_data(turn['content']).text}{TOOL_OUTPUT_CLOSE}"}
    return {"role": turn["role"], "content": turn["content"]}


def is_said(message: dict[str, str]) -> bool:
    """A message someone said (not a tool's output carried on the user side)."""
    return not message["content"].startswith(TOOL_OUTPUT_OPEN)


def is_users(message: dict[str, str]) -> bool:
    """A message the user wrote (not a tool's output carried on the user side)."""
    return message["role"] == "user" and is_said(message)


def attach_pack(
    memories,
    messages: list[dict[str, str]],
    newest_user: int,
    note: str,
    left: int,
    namespace: str,
    exclude: list[str],
    audience: str,
    logged: bool = True,
):
    """Put the Memory Pack for the newest user turn in front of it, within ``left`` tokens, of
    what the conversation's ``audience`` may hear (``logged`` False: no pack log entry). Returns
    the pack (or None) and the tokens it added."""
    query = messages[newest_user]["content"][len(note) :]
    # Every seam is whitespace (the note ends in a blank line, the pack starts and ends with its
    # own lines), so the tokens added are the wrapper's plus the pack's (memory/core/tokens.py).
    wrapper = count_tokens(MEMORIES_OPEN) + count_tokens(MEMORIES_CLOSE)
    if left - wrapper <= 0:
        return None, 0
    # The turns said just before it (not tools' output): the identity block's query reads them too.
    said = [m["content"] for m in messages[:newest_user] if m["role"] in ("user", "assistant") and is_said(m)]
    params = PackParams(
        query=query,
        budget_tokens=left - wrapper,
        namespace=namespace,
        exclude=exclude,
        audience=audience,
        recent=[text for text in said[-2:] if text.strip()],
        logged=logged,
    )
    pack = memories.pack(params)
    if not pack.items:
        return None, 0
    messages[newest_user] = {"role": "user", "content": f"{note}{MEMORIES_OPEN}{pack.text}{MEMORIES_CLOSE}{query}"}
    return pack, wrapper + pack.tokens


def build_context(
    service,
    conversations,
    session: str,
    namespace: str,
    budget: int,
    *,
    persona_state=None,
    drift: str = "none",
    anchor_min_turns: int = 10,
    anchors_as: str = "system",
    people: str = "",
    goals: Callable[[str, str | None], tuple[str, list[str]]] | None = None,
) -> dict[str, Any]:
    """``people``: what the agent knows of the people taking part (their impressions), for the
    stable prefix; already limited to what the session's audience may hear. ``goals``: (namespace,
    audience) -> the standing goals for the prefix and their ids (Goals.standing)."""
    conversations.require(session, namespace)
    if persona_state is None:
        drift = "none"
    turns = conversations.transcript_unobserved(session)
    if drift == "rebase":  # after the forced compaction: the newest raw turns, observed or not
        turns = conversations.transcript_recent(session, max(2, service.config.conversation.keep_recent_turns))
    built = assemble_context(
        service,
        namespace,
        budget,
        audience=conversations.origin(session)[0],
        live=conversations.live_transcript(session),
        turns=turns,
        persona_state=persona_state,
        drift=drift,
        anchor_min_turns=anchor_min_turns,
        anchors_as=anchors_as,
        people=people,
        goals=goals,
    )
    return {"session": session, **built}


def assemble_context(
    service,
    namespace: str,
    budget: int,
    *,
    audience: str,
    live: list[dict[str, Any]],
    turns: list[dict[str, Any]],
    persona_state=None,
    drift: str = "none",
    anchor_min_turns: int = 10,
    anchors_as: str = "system",
    people: str = "",
    goals: Callable[[str, str | None], tuple[str, list[str]]] | None = None,
    logged: bool = True,
) -> dict[str, Any]:
    """The context of a conversation heard by ``audience`` whose observation log is ``live`` and
    whose raw turns are ``turns`` (stored ones, or an app's history that is not: a count, a call
    kept out of memory): the stable prefix, the turns that fit, the Memory Pack in front of the
    newest user turn. One budget arithmetic for every caller."""
    cfg = service.config.conversation
    # Persona memories the session may not hear (one added as the user's own) stay out of a chat's prefix.
    persona = [r for r in service.store.live_of_type(namespace, "persona") if service.may_hear(audience, r["audience"])]
    system_budget = int(budget * cfg.system_share)
    record = persona_state.record if persona_state is not None else ""
    contract, persona_ids = persona_contract(persona, system_budget, record, record_limit=budget // 2)
    known = service.known_secrets.of(namespace)  # a secret said before, repeated ("Noted: …"), masked too
    if known:
        live = [{**o, "content": mask(o["content"], values=known)} for o in live]
    system, shown = fit_observations(live, max(system_budget, count_tokens(contract)), contract)
    if people:
        system = f"{system}\n\n{people}" if system else people
    standing, goal_ids = goals(namespace, audience) if goals else ("", [])
    if standing:
        system = f"{system}\n\n{standing}" if system else standing
    # The pack leaves out what the prefix already shows: the shown observations, the persona, the goals.
    in_prefix = [o["memory_id"] for o in shown if o["memory_id"]] + persona_ids + goal_ids
    system_tokens = count_tokens(system)

    memory_share = int(budget * cfg.memories_share)
    history_budget = budget - system_tokens - memory_share
    if persona_state is None:
        drift = "none"
    anchor_text = anchor(persona_state) if drift == "anchor" else ""
    history_budget -= 2 * count_tokens(anchor_text)  # room for two anchors
    chosen, used = fit_turns(with_speakers(turns), history_budget)
    messages = [as_message(t) for t in chosen]
    in_prefix += [t["episode"] for t in chosen if t.get("episode")]  # the turns shown are not packed again

    positions: list[int] = []
    if drift == "anchor":
        positions = place_anchors(messages, anchor_text, anchor_min_turns, anchors_as)
        if not positions:
            drift = "reinforce"  # too few turns for anchors: the reminder is the nearest repair
    newest_user = max((i for i, m in enumerate(messages) if is_users(m)), default=None)
    raw_newest = messages[newest_user]["content"] if newest_user is not None else ""
    note = reminder(persona_state) + "\n\n" if drift == "reinforce" and newest_user is not None else ""
    if note:
        messages[newest_user] = {"role": "user", "content": note + messages[newest_user]["content"]}
    if drift == "reinforce" and not note:
        drift = "none"  # no user turn to carry the reminder

    def unspent() -> int:
        return budget - system_tokens - sum(count_tokens(m["content"]) for m in messages)

    pack, added = None, 0
    left = unspent()
    while note and left < 0 and newest_user > 0:  # the reminder must fit: drop the oldest turn
        used -= count_tokens(messages.pop(0)["content"])
        newest_user -= 1
        left = unspent()
    if note and left < 0:  # a budget too small for it: no reminder rather than over budget
        messages[newest_user] = {"role": "user", "content": messages[newest_user]["content"][len(note) :]}
        note, drift = "", "none"
        left = unspent()
    if newest_user is not None and left > 20:
        pack, added = attach_pack(service, messages, newest_user, note, left, namespace, in_prefix, audience, logged)
    tokens = budget - left + added
    # What was put in front of the newest user turn (reminder + pack), for a door that keeps the
    # app's own messages and adds only this (the proxy's augment mode).
    newest_prefix = ""
    if newest_user is not None:
        content = messages[newest_user]["content"]
        newest_prefix = content[: len(content) - len(raw_newest)] if content.endswith(raw_newest) else ""
    wrapper = count_tokens("<persona-anchor></persona-anchor>") if anchors_as == "user" else 0
    persona_tokens = count_tokens(note) + (count_tokens(anchor_text) + wrapper) * len(positions)
    return {
        "namespace": namespace,
        "system": system,
        "messages": messages,
        "prefix_hash": hashlib.sha256(system.encode("utf-8")).hexdigest(),
        "tokens": tokens,
        "budget_tokens": budget,
        "parts": {
            "system": system_tokens,
            "history": used,
            "memories": tokens - system_tokens - used - persona_tokens,
            "persona": persona_tokens,
            "turns": len(messages),
            "unobserved_turns": len(turns),
            "observations": len(live),
            "history_budget": history_budget,
        },
        "pack_id": pack.pack_id if pack else None,
        "drift_action": drift,
        "anchors": positions if drift == "anchor" else [],
        "injected": {"newest_user_prefix": newest_prefix, "anchor": anchor_text if positions else ""},
    }
