"""The ranking signals, declared once.

A signal is one number a candidate memory carries through a search or a pack: what its score is
made of, or what moved its similarity and why. Each is declared here with what it means, the
config keys that weigh or tune it (their section, default, bounds and description), and how a
person is shown it. What follows from this list:

- ``Signals`` (memory/retrieval/scoring.py), the plain record a pack builds per candidate;
- ``SignalsOut`` (memory/core/models.py), what a search hit and a logged pack candidate carry;
- the keys of ``[scoring]`` and ``[retrieval]`` that tune a signal (memory/core/config.py), which
  a test holds agentmemd.toml to;
- the CLI's search and explain lines (daemon/cli/printers.py) and the table in docs/packing.md.

A new signal is a line here plus the code that computes it (memory/retrieval/candidates.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

# How the CLI shows a signal: always (as ``label=value``); when it moved the similarity (gained +
# or lost -, beside the memory's own ``match``); when it is set (not 0); or never (JSON and the
# dashboard still show every signal).
Shown = Literal["always", "moved", "set", "never"]
Section = Literal["scoring", "retrieval"]


@dataclass(frozen=True)
class Knob:
    """A config key that weighs or tunes a signal."""

    section: Section
    key: str
    default: float
    description: str
    ge: float | None = None
    le: float | None = None
    gt: float | None = None

    def field(self) -> tuple[type, Any]:
        """The key as a pydantic field definition, for ``create_model``."""
        from pydantic import Field

        return float, Field(self.default, ge=self.ge, le=self.le, gt=self.gt, description=self.description)


@dataclass(frozen=True)
class Signal:
    name: str
    meaning: str  # what it is, as the docs, the socket's schema and the dashboard's column say it
    shown: Shown = "never"
    label: str = ""  # its name on the CLI's line, when shorter than its name
    digits: int = 3
    sign: Literal["+", "-", ""] = ""  # a signal shown when it moved similarity: what it gained (+) or lost (-)
    knobs: tuple[Knob, ...] = ()


_OFF = " (0: off)."

SIGNALS: tuple[Signal, ...] = (
    Signal(
        "similarity",
        "The relevance the scores use: `match` lifted by `neighbourhood`, then moved by `answer`, "
        "`constraint`, `slot`, `speaker` and `time`.",
        shown="always",
        label="sim",
        knobs=(
            Knob("scoring", "similarity", 0.35, "Weight of the similarity signal in a memory's score (seed 002, 5.1)."),
        ),
    ),
    Signal(
        "priority",
        "How much the memory matters: the priority it was given, at least its type's floor "
        "(`[scoring.priority_floors]`); Park mode's importance.",
        shown="always",
        label="prio",
        digits=2,
        knobs=(Knob("scoring", "priority", 0.25, "Weight of the priority signal."),),
    ),
    Signal(
        "decay",
        "Its retention: `exp(-0.693 h / half_life)`, the half-life growing with each access (`[decay]`).",
        shown="always",
        knobs=(Knob("scoring", "decay", 0.20, "Weight of retention (decay with reinforcement)."),),
    ),
    Signal(
        "frequency",
        "How often it was used: a boost that grows with its access count.",
        shown="always",
        label="freq",
        knobs=(Knob("scoring", "frequency", 0.20, "Weight of how often it was used."),),
    ),
    Signal(
        "match",
        "The memory's own hybrid match with the query: cosine blended with BM25 on an absolute scale.",
        knobs=(
            Knob("retrieval", "dense_weight", 0.5, "Share of cosine in the similarity signal.", ge=0, le=1),
            Knob("retrieval", "lexical_weight", 0.5, "Share of BM25 in the similarity signal.", ge=0, le=1),
        ),
    ),
    Signal(
        "neighbourhood",
        "The best match of the memories stored just before and after it (its episode).",
        knobs=(
            Knob(
                "retrieval",
                "neighbour_weight",
                0.5,
                "How much a memory's episode lifts it: similarity = its own match + this x 64/(64 + its "
                "tokens) x the best match of the memories stored just before and after it" + _OFF,
                ge=0,
                le=1,
            ),
        ),
    ),
    Signal(
        "constraint",
        "What a standing constraint's similarity was lifted by when the query asks for advice.",
        shown="moved",
        sign="+",
        knobs=(
            Knob(
                "retrieval",
                "constraint_share",
                0.8,
                "For a request for advice, a standing constraint (allergy, diet, what makes the person ill) gets "
                "this share of the best candidate's similarity, blended with its own" + _OFF,
                ge=0,
                le=1,
            ),
        ),
    ),
    Signal(
        "slot",
        "What similarity gained as the newest value of a fact slot the question asks about in the present "
        "(where someone lives or works now, their partner, phone, diet...).",
        shown="moved",
        sign="+",
        knobs=(
            Knob(
                "retrieval",
                "slot_share",
                1.0,
                "For a question about a fact slot in the present, the newest memory filling it (for the person "
                "asked about) gets this share of the best candidate's similarity if that is more than its own, and ranks above the older "
                "ones (0: off; a question about the past is exempt).",
                ge=0,
                le=1,
            ),
        ),
    ),
    Signal(
        "speaker",
        "What similarity lost as the words of someone the question does not ask about.",
        shown="moved",
        sign="-",
        knobs=(
            Knob(
                "retrieval",
                "other_speaker_penalty",
                0.3,
                "A question that names a person (one of the namespace's speakers): what another person said "
                "counts this share less similar" + _OFF,
                ge=0,
                le=1,
            ),
            Knob(
                "retrieval",
                "assistant_penalty",
                0.5,
                "What the assistant said counts this share less similar than what people said, unless the "
                "question asks what the assistant said ('you recommended'); then the people's words count that "
                "much less" + _OFF,
                ge=0,
                le=1,
            ),
        ),
    ),
    Signal(
        "time",
        "What similarity lost as speaking of other days than the question asks about.",
        shown="moved",
        sign="-",
        knobs=(
            Knob(
                "retrieval",
                "time_penalty",
                0.3,
                "A question about a time gone by ('last Thursday', 'in March 2023', 'this year'): a memory that "
                "speaks of no day of it (nor was said on one) counts this share less similar" + _OFF,
                ge=0,
                le=1,
            ),
        ),
    ),
    Signal(
        "answer",
        "What similarity gained as the answer to a question asked just before it in its episode.",
        shown="moved",
        sign="+",
        knobs=(
            Knob(
                "retrieval",
                "answer_share",
                1.0,
                "A memory stored just after a question of its episode, by someone else than the assistant (its "
                "answer), is at least this share as similar as the question" + _OFF,
                ge=0,
                le=1,
            ),
        ),
    ),
    Signal(
        "recency",
        'Park mode\'s recency (`[scoring] mode = "park"`): `park_recency_per_hour ** hours` since it was '
        "last accessed.",
        knobs=(
            Knob(
                "scoring",
                "park_recency_per_hour",
                0.995,
                "Park mode's recency: this to the power of the hours since last accessed.",
                gt=0,
                le=1,
            ),
        ),
    ),
    Signal(
        "affect",
        "How intense a feeling the memory holds: its arousal (seed 003, 3.3).",
        shown="set",
        digits=2,
        knobs=(
            Knob(
                "scoring",
                "affect",
                0.0,
                "Weight of a memory's emotional intensity (its arousal), in either mode; 0: off.",
                ge=0,
                le=1,
            ),
        ),
    ),
)

SIGNAL_NAMES: tuple[str, ...] = tuple(s.name for s in SIGNALS)


def knobs_of(section: Section) -> dict[str, tuple[type, Any]]:
    """The config keys of ``section`` the signals declare, as pydantic field definitions."""
    return {k.key: k.field() for s in SIGNALS for k in s.knobs if k.section == section}


def signals_line(signals: dict[str, float]) -> str:
    """A candidate's signals as the CLI shows them: "sim=0.412 prio=0.50 decay=0.981 freq=0.000",
    then, if something moved its similarity, its own match and what moved it ("match=0.300
    answer=+0.112"), then any other set signal ("affect=0.80")."""
    parts = [f"{s.label or s.name}={signals[s.name]:.{s.digits}f}" for s in SIGNALS if s.shown == "always"]
    moved = [s for s in SIGNALS if s.shown == "moved" and signals.get(s.name)]
    if moved:
        parts.append(f"match={signals['match']:.3f}")
        parts += [f"{s.label or s.name}={s.sign}{signals[s.name]:.{s.digits}f}" for s in moved]
    parts += [
        f"{s.label or s.name}={signals[s.name]:.{s.digits}f}"
        for s in SIGNALS
        if s.shown == "set" and signals.get(s.name)
    ]
    return " ".join(parts)


def signals_table() -> str:
    """The signals as a Markdown table, for docs/packing.md."""
    rows = ["| signal | what it is | tuned by |", "|---|---|---|"]
    for s in SIGNALS:
        keys = ", ".join(f"`[{k.section}] {k.key}` ({k.default:g})" for k in s.knobs) or "-"
        rows.append(f"| `{s.name}` | {s.meaning} | {keys} |")
    return "\n".join(rows)
