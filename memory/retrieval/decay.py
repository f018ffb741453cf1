"""Decay with reinforcement (seed 002, 5.7): retention, tiers, reinforcement events."""

from __future__ import annotations

import math
from datetime import datetime

import numpy as np

from agentmemd.memory.core.config import DecayConfig, ReinforcementConfig
from agentmemd.memory.core.vocabulary import IDENTITY_TYPES, ReinforceEvent, Tier


def retention(
    last_accessed: datetime,
    access_count: float,
    memory_type: str,
    now: datetime,
    cfg: DecayConfig,
) -> float:
    """exp(-0.693 * hours_since_access / half_life), half_life = BASE * (1 + log2(1 + n)).

    persona and relational memories never fall below ``identity_min_retention``.
    """
    hours = max(0.0, (now - last_accessed).total_seconds() / 3600.0)
    value = _decay(hours, max(0.0, access_count), cfg, math)
    if memory_type in IDENTITY_TYPES:
        value = max(value, cfg.identity_min_retention)
    return value


def _decay(hours, access_count, cfg: DecayConfig, xp):
    """The formula once, for one memory (``xp`` = math) or many at once (``xp`` = numpy arrays)."""
    half_life = cfg.base_half_life_hours * (1.0 + xp.log2(1.0 + access_count))
    return xp.exp(-0.693 * hours / half_life)


def retention_many(ages: np.ndarray, cfg: DecayConfig) -> np.ndarray:
    """``retention`` of many memories at once; ``ages``: one row each of (is an identity type,
    access count, hours since the last access), as Store.access_ages reads them. What stats and a
    listing by tier compute over a whole store: 100,000 memories in milliseconds."""
    identity, access_counts, hours = ages[:, 0] > 0, ages[:, 1], ages[:, 2]
    value = _decay(np.maximum(hours, 0.0), np.maximum(access_counts, 0.0), cfg, np)
    return np.where(identity, np.maximum(value, cfg.identity_min_retention), value)


def tiers_many(values: np.ndarray, cfg: DecayConfig) -> np.ndarray:
    """``tier_of`` of many retention values at once (an array of tier names)."""
    return np.select(
        [values > cfg.active_above, values >= cfg.warm_above, values >= cfg.cold_above],
        ["active", "warm", "cold"],
        "archived",
    )


def tier_of(value: float, cfg: DecayConfig) -> Tier:
    if value > cfg.active_above:
        return "active"
    if value >= cfg.warm_above:
        return "warm"
    if value >= cfg.cold_above:
        return "cold"
    return "archived"


def frequency_boosts(access_counts: np.ndarray) -> np.ndarray:
    """log2(1 + n) / 10, capped at 1 (seed 002, 5.1), of many memories at once."""
    return np.minimum(1.0, np.log2(1.0 + np.maximum(0.0, access_counts)) / 10.0)


def reinforcement_amount(event: ReinforceEvent, cfg: ReinforcementConfig) -> float:
    return float(getattr(cfg, event))


def retention_curve(
    accesses: list[tuple[datetime, float]],
    memory_type: str,
    until: datetime,
    cfg: DecayConfig,
    samples: int = 48,
) -> list[tuple[datetime, float]]:
    """Retention over time from a memory's accesses, (time, access count after it), oldest first,
    up to ``until``: ``samples`` points spread evenly, plus each access (where retention jumps
    back to 1) and the instant before it."""
    if not accesses:
        return []
    start = accesses[0][0]
    span = max((until - start).total_seconds(), 1.0)
    times = {start + (until - start) * (i / max(1, samples - 1)) for i in range(samples)} if span > 1 else {until}
    for at, _ in accesses[1:]:
        times.add(at)
        times.add(at - (until - start) * 1e-6)
    points = []
    for t in sorted(x for x in times if start <= x <= until):
        last, count = accesses[0]
        for at, n in accesses:
            if at <= t:
                last, count = at, n
        points.append((t, retention(last, count, memory_type, t, cfg)))
    return points
