"""Plots as SVG geometry, computed here and drawn by the templates' macros (charts.html).

Server-rendered SVG, not a JavaScript charting library: the pages work without scripts, print,
and each plotted point is an element a test (or a screen reader) can count and read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from agentmemd.memory.core.clock import parse_time

WIDTH, HEIGHT = 640, 200
PAD_LEFT, PAD_RIGHT, PAD_TOP, PAD_BOTTOM = 40, 10, 10, 24


@dataclass
class Point:
    x: float
    y: float
    title: str  # what a hover (and a test) reads: the point's time and value


@dataclass
class Line:
    name: str
    points: list[Point]
    dashed: bool = False

    @property
    def path(self) -> str:
        return " ".join(f"{p.x:.1f},{p.y:.1f}" for p in self.points)


@dataclass
class Rule:
    y: float
    label: str


@dataclass
class Mark:
    x: float
    label: str


@dataclass
class Chart:
    lines: list[Line] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    x_labels: list[tuple[float, str]] = field(default_factory=list)
    y_labels: list[tuple[float, str]] = field(default_factory=list)
    width: int = WIDTH
    height: int = HEIGHT

    @property
    def empty(self) -> bool:
        return not any(line.points for line in self.lines)


def _scale(value: float, low: float, high: float, out_low: float, out_high: float) -> float:
    if high == low:
        return (out_low + out_high) / 2
    return out_low + (value - low) * (out_high - out_low) / (high - low)


def time_chart(
    series: dict[str, list[tuple[str, float]]],
    *,
    y_range: tuple[float, float] = (0.0, 1.0),
    rules: Sequence[tuple[float, str]] = (),
    marks: Sequence[tuple[str, str]] = (),
    dashed: frozenset[str] = frozenset(),
) -> Chart:
    """Lines over time: ``series`` name -> [(ISO time, value)], ``rules`` horizontal lines
    (value, label), ``marks`` vertical ones (ISO time, label)."""
    times = [parse_time(at) for points in series.values() for at, _ in points] + [parse_time(at) for at, _ in marks]
    chart = Chart()
    if not times:
        return chart
    first, last = min(times), max(times)
    low, high = y_range

    def x_of(at: datetime) -> float:
        return _scale(at.timestamp(), first.timestamp(), last.timestamp(), PAD_LEFT, WIDTH - PAD_RIGHT)

    def y_of(value: float) -> float:
        return _scale(value, low, high, HEIGHT - PAD_BOTTOM, PAD_TOP)

    for name, points in series.items():
        chart.lines.append(
            Line(
                name,
                [Point(x_of(parse_time(at)), y_of(v), f"{at[:16].replace('T', ' ')}: {v:.3f}") for at, v in points],
                dashed=name in dashed,
            )
        )
    chart.rules = [Rule(y_of(value), label) for value, label in rules]
    chart.marks = [Mark(x_of(parse_time(at)), label) for at, label in marks]
    chart.x_labels = [(x_of(first), first.strftime("%Y-%m-%d %H:%M")), (x_of(last), last.strftime("%Y-%m-%d %H:%M"))]
    chart.y_labels = [(y_of(v), f"{v:g}") for v in (low, (low + high) / 2, high)]
    return chart


@dataclass
class Bar:
    x: float
    y: float
    width: float
    height: float
    label: str
    count: int


def bar_chart(counts: list[int], labels: list[str]) -> list[Bar]:
    """Bars of ``counts`` (a histogram), each labelled."""
    top = max(counts, default=0) or 1
    room = 14  # above the tallest bar, for its count
    slot = (WIDTH - PAD_LEFT - PAD_RIGHT) / max(1, len(counts))
    bars = []
    for i, (count, label) in enumerate(zip(counts, labels)):
        height = (HEIGHT - PAD_TOP - room - PAD_BOTTOM) * count / top
        bars.append(Bar(PAD_LEFT + i * slot + 2, HEIGHT - PAD_BOTTOM - height, slot - 4, height, label, count))
    return bars
