"""How long each stage of a request took: a pack logs its stages (``context.explain`` shows them
as ``stages_ms``) and ``agentmemd bench pack`` prints them, so a slower pack shows where.

    watch = Stopwatch()
    ...                       # the candidates are found
    watch.lap("candidates")   # the time since the last lap (or since it started) is theirs
    watch.ms                  # {"candidates": 3.2, ...} milliseconds

A duration on the process's performance counter, not a time of day (that is clock.py's).
"""

from __future__ import annotations

import time


class Stopwatch:
    def __init__(self) -> None:
        self.ms: dict[str, float] = {}  # stage -> milliseconds, in the order the stages first ran
        self._last = time.perf_counter()

    def lap(self, stage: str) -> None:
        """The time since the last lap counts to ``stage`` (added to it, if it ran before)."""
        now = time.perf_counter()
        self.ms[stage] = self.ms.get(stage, 0.0) + (now - self._last) * 1000
        self._last = now

    def rounded(self) -> dict[str, float]:
        return {stage: round(ms, 3) for stage, ms in self.ms.items()}
