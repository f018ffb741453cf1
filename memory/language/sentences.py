"""Sentence segmentation: pysbd's rule-based splitter (Golden Rules for English), offline.

pysbd handles abbreviations ("Dr.", "e.g."), decimals, ellipses and quotes that a
regex split on ". " gets wrong. A Segmenter keeps state while it works, so each
thread gets its own.
"""

from __future__ import annotations

import threading

import pysbd

_local = threading.local()


def _segmenter() -> pysbd.Segmenter:
    seg = getattr(_local, "segmenter", None)
    if seg is None:
        seg = _local.segmenter = pysbd.Segmenter(language="en", clean=False)
    return seg


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, stripped, empty ones dropped."""
    text = " ".join(text.split())
    if not text:
        return []
    return [s.strip() for s in _segmenter().segment(text) if s.strip()]
