"""OpenClaw with agentmemd as its memory: the plugin OpenClaw loads (plugin/, JavaScript, on the
Node client) and what `agentmemd hooks openclaw install|uninstall` does to OpenClaw's config."""
