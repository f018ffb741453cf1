"""The LLM layer: one interface for the daemon's language-model work.

``tasks`` defines the memory's tasks (observe, reflect, summarise, impression), their validated shapes
and prompts; ``local_provider`` does them offline, ``anthropic_provider`` through the
Messages API; ``ledger`` books every API call's exact usage and cost; ``cache`` is the
semantic response cache in front of them.
"""

from __future__ import annotations


def make_provider(config, ledger, embedder):
    """The provider ``[llm] provider`` names. anthropic without a key raises LLMUnavailable."""
    if config.llm.provider == "anthropic":
        from agentmemd.memory.llm.anthropic_provider import AnthropicProvider

        return AnthropicProvider(config.llm, ledger)
    from agentmemd.memory.llm.local_provider import LocalProvider

    return LocalProvider(embedder)
