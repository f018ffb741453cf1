"""agentmemd behind the memory interfaces agent frameworks define, for an app built on them: the
OpenAI Agents SDK's ``Session`` (openai_agents.py). Each needs its framework installed
(``pip install openai-agents``); agentmemd itself does not depend on it."""
