"""The LLM layer: one interface for the daemon's language-model work.

``anthropic_provider`` talks to the Messages API through the official SDK; ``ledger``
records every call's exact token usage and cost. The offline ``local`` provider's
methods arrive with the tasks that use them (the Observer/Reflector, issue 4).
"""
