"""The nightly consolidation: memories grouped into patterns, principles and insights."""
