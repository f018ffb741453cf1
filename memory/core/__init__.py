"""The leaves: config, vocabulary, params and result models, errors, the clock, the token counter,
the word tokenizer, audiences. They import nothing of agentmemd's above them."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("agentmemd")
except PackageNotFoundError:  # a source tree used without installing it
    __version__ = "0.0.0+source"
