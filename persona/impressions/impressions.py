"""Impressions: what the agent makes of each person it meets in a chat (seed 004, 3.1 and B.2).

An impression answers four questions about one person, each with its sources:

    cares_about   what they care about: their preferences, decisions and feelings, as observed
    talks_about   what they talk about more than the others in that chat: topic words, counted
    relationship  how they stand to the agent and to the user: where they talk, how much, since when
    speaks        how they speak: message length and the voice markers stylometry finds
    believes      what they believe about others (theory of mind): what they said about people
                  the agent knows

It is built from what was said in ONE audience (a private chat, a group), so an impression is
heard exactly where what it was built from may be heard; a conversation hears the impressions of
its participants that its own audience allows (memory/core/disclosure.py). The local provider
builds it extractively, as here: every line is the person's own words or a count, never a guess;
what they talk about is a summary (the words they use more than the others there, in any language),
not a quote.
It is rebuilt after each Observer run over a session the person spoke in. With the anthropic
provider, a model writes the four answers (and what to keep from them) from the person's
observations with seed 004's prompt (``from_model``); the counts stay the extractive ones.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

from agentmemd.memory.core.text import fold, without_forwarded_mark, words
from agentmemd.memory.core.threads import yield_to_requests
from agentmemd.memory.language.cues import FIRST_PERSON
from agentmemd.memory.language.function_words import function_words_of
from agentmemd.memory.language.slots import stated
from agentmemd.memory.llm.tasks import ImpressionResult
from agentmemd.memory.safety.secrets import kinds_in, mask, without_masks
from agentmemd.persona.syncscore.stylometry import measure, voice_markers

MAX_ITEMS = 5
TURNS_READ = 200
PRIORITY_RANK = {"HIGH": 0, "MED": 1, "LOW": 2}
CARED = ("preference", "decision", "emotional", "fact")
TOPIC_SOURCES = 3
# Chat fillers no function-word list has: laughter ("jajaja", "hahaha", "kkkk") and shorthand.
FILLER = re.compile(
    r"(?:[hjk][aeiou]?){2,}h?|(?:lol|lmao|rofl|omg|btw|tbh|idk|imo|ngl|tho|pls|plz|thx|yay|xd|mdr|mdrr)"
)


def without_secrets(
    observations: list[dict[str, Any]], turns: list[dict[str, Any]], heard: list[str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[str]]:
    """What an impression may be built from (and a model shown): no observation that holds a
    secret (a card number someone gave is no care of theirs, and an impression rides into every
    context of their chats, where a secret is never packed), and the turns with each secret masked."""
    return (
        [o for o in observations if not kinds_in(o["content"])],
        [{**t, "content": mask(t["content"])} for t in turns],
        [mask(text) for text in heard],
    )


def masked_impression(impression: dict[str, Any]) -> dict[str, Any]:
    """A stored impression with any secret in its lines masked (one built before its sources were
    cleaned of them, or a model's answer that quoted one)."""

    def items(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{**e, "text": mask(e["text"])} for e in entries]

    relationship = impression["relationship"]
    return {
        **impression,
        "cares_about": items(impression["cares_about"]),
        "talks_about": items(impression.get("talks_about", [])),
        "relationship": {**relationship, "said": items(relationship["said"])},
        "believes": items(impression["believes"]),
        "keep_from_them": [mask(text) for text in impression.get("keep_from_them", [])],
    }


def _without_speaker(text: str, name: str) -> str:
    return text[len(name) + 2 :] if text.startswith(f"{name}: ") else text


def build_impression(
    name: str,
    observations: list[dict[str, Any]],
    turns: list[dict[str, Any]],
    others: dict[str, str],
    place: dict[str, Any],
    heard: list[str] = (),  # type: ignore[assignment]
) -> dict[str, Any]:
    """``observations``: the person's (id, content, category, priority, date); ``turns``: theirs,
    newest first (seq, content, ts); ``others``: name -> person id of the people the agent knows;
    ``place``: the chat (title, kind) and whether the user spoke there; ``heard``: what the
    others said in that audience (what the person's words are compared with)."""
    # Highest priority first; within a priority, newest first (stored dates sort as text).
    newest_first = sorted((o for o in observations if _cared(o, name)), key=lambda o: o["date"] or "", reverse=True)
    cared = sorted(newest_first, key=lambda o: PRIORITY_RANK.get(o["priority"], 3))[:MAX_ITEMS]
    relational = [o for o in observations if o["category"] == "relational"][:MAX_ITEMS]
    where = f"the private chat {place['title']!r}" if place["kind"] == "private" else f"the group {place['title']!r}"
    first, last = (turns[-1]["ts"][:10], turns[0]["ts"][:10]) if turns else (None, None)
    relationship = {
        "to_agent": f"{len(turns)} messages in {where}" + (f", {first} to {last}" if first else ""),
        "to_user": "the user takes part there too" if place["user_present"] else "the user is not in that chat",
        "said": [{"text": _without_speaker(o["content"], name), "source": o["id"]} for o in relational],
    }
    return {
        "name": name,
        "cares_about": [{"text": _without_speaker(o["content"], name), "source": o["id"]} for o in cared],
        "talks_about": talks_about(turns, heard, {name, *others}),
        "relationship": relationship,
        "speaks": _speaks(turns),
        "believes": _beliefs(turns, others, name),
    }


def _cared(observation: dict[str, Any], name: str) -> bool:
    """A preference, decision or feeling they stated, or a fact they said of themselves ("I care
    about a fair price for fish"); a request or a fact about the world ("Bring the glaze samples
    please") is no care of theirs: what they talk about says that; nor is a question or a supposition."""
    if observation["category"] not in CARED:
        return False
    said = _without_speaker(observation["content"], name)
    if not stated(said, 0, len(said)):  # "Si me mudara a Lisboa, aprendería a surfear": no care, a supposition
        return False
    return observation["category"] != "fact" or bool(FIRST_PERSON.search(said))


def talks_about(turns: list[dict[str, Any]], heard: list[str], names: set[str]) -> list[dict[str, Any]]:
    """What the person talks about more than the others in that audience: the words found in at
    least two of their messages, at a higher rate than in the others' (function words of the
    chat's language, fillers and the names of the people speaking left out), ranked by how many
    of their messages have the word times the log of the rate's ratio; each with how many
    messages and the newest few as its sources.

    >>> said = [{"seq": i, "content": t} for i, t in enumerate(["el sofá nuevo ya está en casa", "jajaja el sofá es verde", "mañana voy al concierto", "vale"])]
    >>> [t["text"] for t in talks_about(said, ["qué bonito", "yo también quiero un concierto", "vale vale"], {"Ana"})]
    ['sofá']
    """
    if not turns:
        return []
    left_out = function_words_of([t["content"] for t in turns[:50]] + list(heard[:50]))
    names_folded = {fold(part) for name in names for part in name.split()}

    def topic_words(text: str) -> set[str]:
        yield_to_requests()  # up to 1,200 messages read on a background thread
        bases = {w.removesuffix("'s") for w in words(without_masks(without_forwarded_mark(text)))}  # Liam's is Liam
        return {
            w
            for w in bases
            if len(w) > 2
            and not any(c.isdigit() for c in w)
            and w not in left_out
            and fold(w) not in names_folded
            and not FILLER.fullmatch(w)
        }

    theirs = [topic_words(t["content"]) for t in turns]
    in_theirs = Counter(w for found in theirs for w in found)
    in_heard = Counter(w for text in heard for w in topic_words(text))
    ranked = []
    for word, count in in_theirs.items():
        own_rate, heard_rate = (count + 0.5) / (len(turns) + 1), (in_heard[word] + 0.5) / (len(heard) + 1)
        if count >= 2 and own_rate > heard_rate:
            ranked.append((count * math.log(own_rate / heard_rate), word))
    topics = []
    for _, word in sorted(ranked, reverse=True)[:MAX_ITEMS]:
        said = [t for t, found in zip(turns, theirs) if word in found]
        forms = Counter(m.group(0) for t in said for m in re.finditer(rf"(?i)\b{re.escape(word)}\b", t["content"]))
        shown = forms.most_common(1)[0][0] if forms else word
        topics.append(
            {"text": shown, "messages": len(said), "sources": [f"turn:{t['seq']}" for t in said[:TOPIC_SOURCES]]}
        )
    return topics


def _speaks(turns: list[dict[str, Any]]) -> dict[str, Any]:
    if not turns:
        return {"messages": 0}
    style = measure("\n".join(t["content"] for t in turns))
    markers = sorted(voice_markers(style).items(), key=lambda kv: -kv[1])[:3]
    return {
        "messages": len(turns),
        "words_per_message": round(style.words / len(turns), 1),
        "questions_per_message": round(style.questions / len(turns), 2),
        "emoji_per_message": round(style.emoji / len(turns), 2),
        "markers": [m for m, _ in markers],
    }


def _beliefs(turns: list[dict[str, Any]], others: dict[str, str], name: str) -> list[dict[str, Any]]:
    """What the person said about someone else the agent knows: their theory of others."""
    names = [n for n in others if n and n != name and len(n) > 1]
    if not names:
        return []
    pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")\b")
    found: list[dict[str, Any]] = []
    for turn in turns:
        for sentence in re.split(r"(?<=[.!?])\s+", turn["content"]):
            hit = next((m for m in pattern.finditer(sentence) if not _addressed(sentence, m)), None)
            if hit and len(sentence.split()) >= 3:
                found.append({"about": hit.group(1), "text": sentence.strip(), "source": f"turn:{turn['seq']}"})
                break
        if len(found) >= MAX_ITEMS:
            break
    return found


def _addressed(sentence: str, name: re.Match) -> bool:
    """The name calls the person spoken to ("Genial Ana, mi tren llega…", "Thanks, Ana!"), it says
    nothing about them.

    >>> import re
    >>> pattern = re.compile(r"\\bAna\\b")
    >>> [_addressed(s, pattern.search(s)) for s in ("Genial Ana, mi tren llega a las 9", "Thanks, Ana!", "Ana se mudó a Lisboa")]
    [True, True, False]
    """
    before, after = sentence[: name.start()], sentence[name.end() :]
    calls = after.lstrip().startswith((",", "!", "?")) or not after.strip(" .!?")
    return calls and (len(before.split()) <= 1 or before.rstrip().endswith(","))


def from_model(base: dict[str, Any], result: ImpressionResult, sources: list[str]) -> dict[str, Any]:
    """An impression the anthropic provider wrote (seed 004's prompt), over the extractive one's
    counts; its sources are the observations it was shown."""
    return {
        **base,
        "cares_about": [{"text": text, "source": "model"} for text in result.cares_about],
        "relationship": {
            "to_agent": f"{base['relationship']['to_agent']}; {result.relationship_to_agent}",
            "to_user": result.relationship_to_user,
            "said": [],
        },
        "speaks": {**base["speaks"], "markers": [result.speaks]},
        "believes": [{"about": b.about, "text": b.text, "source": "model"} for b in result.believes],
        "keep_from_them": result.keep_from_them,
        "sources": sources,
        "by": "anthropic",
    }


def merge_impressions(parts: list[dict[str, Any]]) -> dict[str, Any] | None:
    """One person's impressions from several audiences (all of which the listener may hear), as one."""
    if not parts:
        return None
    merged = {
        "name": parts[0]["name"],
        "cares_about": [i for p in parts for i in p["cares_about"]][:MAX_ITEMS],
        "talks_about": [i for p in parts for i in p.get("talks_about", [])][:MAX_ITEMS],
        "relationship": {
            "to_agent": "; ".join(p["relationship"]["to_agent"] for p in parts),
            "to_user": "; ".join(dict.fromkeys(p["relationship"]["to_user"] for p in parts)),
            "said": [i for p in parts for i in p["relationship"]["said"]][:MAX_ITEMS],
        },
        "speaks": max((p["speaks"] for p in parts), key=lambda s: s.get("messages", 0)),
        "believes": [i for p in parts for i in p["believes"]][:MAX_ITEMS],
        "keep_from_them": [i for p in parts for i in p.get("keep_from_them", [])][:MAX_ITEMS],
    }
    return merged


def render_impression(impression: dict[str, Any]) -> str:
    """The impression as lines for a context's stable prefix."""
    lines = [f"## {impression['name']}"]
    if impression["cares_about"]:
        lines.append("- cares about: " + "; ".join(i["text"] for i in impression["cares_about"]))
    if impression.get("talks_about"):
        topics = [f"{t['text']} ({t['messages']} messages)" for t in impression["talks_about"]]
        lines.append("- talks about: " + ", ".join(topics))
    rel = impression["relationship"]
    lines.append(f"- with you: {rel['to_agent']}; {rel['to_user']}")
    if rel["said"]:
        lines.append("- relationships: " + "; ".join(i["text"] for i in rel["said"]))
    speaks = impression["speaks"]
    if speaks.get("messages"):
        style = ", ".join(speaks["markers"]) or "no marked style"
        lines.append(f"- speaks: about {speaks['words_per_message']:g} words a message; {style}")
    if impression["believes"]:
        lines.append("- says of others: " + "; ".join(f"{b['about']}: {b['text']}" for b in impression["believes"]))
    if impression.get("keep_from_them"):
        lines.append("- keep from them: " + "; ".join(impression["keep_from_them"]))
    return "\n".join(lines)
