"""The LLM layer's one interface: the tasks the daemon asks a language model to do, their
input and output shapes (pydantic, validated whatever the provider), and the prompts.

A provider implements :class:`LanguageModel`. ``local`` does each task with offline
methods (memory/llm/local_provider.py); ``anthropic`` asks Claude with these prompts
and validates the JSON it returns against these models.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from ..cues import Category, Priority

ObsText = Annotated[str, Field(min_length=1, max_length=2000)]


@dataclass(frozen=True)
class TaskSpec:
    name: str
    category: str  # the response cache is keyed by category and namespace
    cacheable: bool  # False: a fresh answer is required every time (e.g. sampled judgements)
    semantic: bool  # True: a similar enough prompt may reuse an answer; False: exact prompt only


# observe/reflect answers are specific to their exact input (a similar chunk of conversation
# holds different facts), so only the exact-match path may serve them: a redone run after a
# crash is then free. Summaries of nearly the same cluster may share an answer.
TASKS: dict[str, TaskSpec] = {
    "observe": TaskSpec("observe", "compaction", cacheable=True, semantic=False),
    "reflect": TaskSpec("reflect", "compaction", cacheable=True, semantic=False),
    "summarise": TaskSpec("summarise", "summary", cacheable=True, semantic=True),
    "judge": TaskSpec("judge", "judgement", cacheable=False, semantic=False),
}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TurnIn(_Model):
    """One conversation turn handed to the Observer."""

    seq: int
    role: Literal["user", "assistant"]
    speaker: str
    content: str
    ts: str  # ISO time it was said: relative dates resolve against it


class ObservationDraft(_Model):
    priority: Priority
    category: Category
    content: ObsText
    source_turns: list[int] = Field(min_length=1, description="seq of the turns it comes from")
    referenced_date: str | None = Field(None, max_length=40, description="the date it refers to, ISO")
    relative_date: str | None = Field(None, max_length=80, description="the phrase as said, e.g. 'last Tuesday'")


class ObserveResult(_Model):
    observations: list[ObservationDraft]


class ObservationIn(_Model):
    """One current observation handed to the Reflector."""

    id: str
    date: str
    priority: Priority
    category: Category
    content: str
    referenced_date: str | None = None
    relative_date: str | None = None


class ReflectedItem(_Model):
    content: ObsText
    priority: Priority
    category: Category
    sources: list[str] = Field(min_length=1, description="ids of the observations this entry stands for")
    supersedes: list[str] = Field(default_factory=list, description="ids of observations newer information replaces")
    referenced_date: str | None = Field(None, max_length=40)
    relative_date: str | None = Field(None, max_length=80)


class ReflectResult(_Model):
    observations: list[ReflectedItem]


class SummaryResult(_Model):
    summary: ObsText


class LanguageModel(Protocol):
    name: str

    def observe(self, turns: list[TurnIn], *, namespace: str) -> ObserveResult: ...

    def reflect(self, observations: list[ObservationIn], *, namespace: str, target_ratio: float) -> ReflectResult: ...

    def summarise(self, texts: list[str], *, namespace: str) -> SummaryResult: ...


OBSERVER_PROMPT = """You are observing a conversation between an AI agent and its user.
Extract observations: concise notes about what happened. Each observation captures ONE specific
piece of information, names who it is about, and cites the seq of the turn(s) it comes from.

Priority guide:
HIGH: user preferences, decisions, emotional states, identity-relevant information
MED: task details, technical choices, contextual facts
LOW: transient information, routine exchanges

category is one of fact, preference, decision, emotional, relational.
When a turn places something in time ("last Tuesday", "next month", "two weeks ago"), give
relative_date as said and referenced_date resolved against that turn's own timestamp (ISO:
YYYY-MM-DD for a day, YYYY-Www for a week, YYYY-MM for a month, YYYY for a year).
Skip greetings, thanks and small talk."""

REFLECTOR_PROMPT = """Review these observations and produce a condensed version:
1. Combine related observations into single entries
2. Promote patterns from multiple observations into higher-level insights
3. Drop observations superseded by newer information (list the replaced ids in supersedes)
4. Preserve ALL high-priority (HIGH) observations unless explicitly contradicted
5. Maintain temporal ordering

Every entry lists in sources the ids of the observations it stands for. An input id that is in
no entry's sources or supersedes is dropped. The output should be 30-50% the size of the input."""

SUMMARY_PROMPT = """Summarise what these related memories have in common in one or two sentences.
Name the people and things involved; do not invent anything that is not in them."""
