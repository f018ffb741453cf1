"""The one vocabulary: memory types, reinforcement events, tiers and SyncScore dimensions.

Every module, the config model, the socket's params and the CLI's choices take these
from here, so adding a type or an event is a one-line change.
"""

from __future__ import annotations

from typing import Literal, get_args

MemoryType = Literal["fact", "preference", "persona", "relational", "procedural", "episode"]
MEMORY_TYPES: tuple[str, ...] = get_args(MemoryType)
# What each type is for, as the CLI's help and the docs say it.
MEMORY_TYPE_MEANINGS: dict[str, str] = {
    "fact": "something true of the world or of someone ('Ana lives in Porto')",
    "preference": "what someone likes, wants or avoids ('prefers short answers')",
    "persona": "the agent's own identity: its voice, values and rules (in every pack)",
    "relational": "who people are to the user and the agent ('Ana is the user's sister'; in every pack)",
    "procedural": "how something is done ('deploys go out with make release')",
    "episode": "one turn of a conversation as it was said (what conversations and chat imports store)",
}
# An episode is one turn of a conversation as it was said (issue 16): the raw evidence that the
# Observer's observations (facts, preferences, ...) are distilled from; a pack prefers those.
EPISODE = "episode"
# Identity memories: pinned in every pack whatever their tier, and never decay below a floor.
IDENTITY_TYPES = frozenset({"persona", "relational"})
# The workspace files every item of which the identity graph reads, whatever its type.
IDENTITY_FILES = ("SOUL.md", "IDENTITY.md", "USER.md")

# An access to a memory (seed 002, 5.7): each adds its amount to the access count.
ReinforceEvent = Literal["direct", "indirect", "used", "retrieved_unused"]
REINFORCE_EVENTS: tuple[str, ...] = get_args(ReinforceEvent)
REINFORCE_EVENT_MEANINGS: dict[str, str] = {
    "direct": "someone asked for it or about it",
    "indirect": "it came up beside what was asked",
    "used": "the agent used it in a reply",
    "retrieved_unused": "it was packed or found but not used",
}

# Retention tiers, warmest first; "archived" is a memory moved out of the live table.
Tier = Literal["active", "warm", "cold", "archived"]
TIERS: tuple[str, ...] = get_args(Tier)
TIER_RANK: dict[str, int] = {tier: rank for rank, tier in enumerate(TIERS)}

# SyncScore's five dimensions (seed 002, 5.3).
Dimension = Literal["voice", "relational", "grounded", "style", "constraint"]
DIMENSIONS: tuple[str, ...] = get_args(Dimension)

Role = Literal["user", "assistant", "tool"]  # tool: a tool's output an app handed the model; data, never speech

# A memory's emotion (seed 003, 3.3; memory/language/affect.py): six basic emotions (Ekman), or
# only how it feels where no emotion's cue is said.
Emotion = Literal["joy", "sadness", "anger", "fear", "surprise", "disgust", "positive", "negative", "neutral"]
EMOTIONS: tuple[str, ...] = get_args(Emotion)
BASIC_EMOTIONS: tuple[str, ...] = EMOTIONS[:6]

# The source of a memory consolidation built ("consolidation level 2 (principles)"): a summary of
# other memories, never a relation or a rule anyone stated (the identity graph does not read it).
CONSOLIDATED_SOURCE = "consolidation level"
