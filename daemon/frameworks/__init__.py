"""agentmemd behind the memory interfaces agent frameworks define, for an app built on them: the
OpenAI Agents SDK's ``Session`` (openai_agents.py) and LangGraph's ``BaseStore``
(langgraph_store.py). Each needs its framework installed (``pip install 'agentmemd[openai-agents]'``,
``'agentmemd[langgraph]'``); agentmemd itself does not depend on them."""
