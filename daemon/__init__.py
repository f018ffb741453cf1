"""agentmemd.daemon: the doors (socket, CLI) and the benchmarks. Each door calls memory/services."""

from agentmemd.memory.core import __version__

__all__ = ["__version__"]
