"""Leaves: config, vocabulary, models, errors, clock, token counter. They import nothing of agentmemd's above them."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("agentmemd")
except PackageNotFoundError:  # a source tree used without installing it
    __version__ = "0.0.0+source"
