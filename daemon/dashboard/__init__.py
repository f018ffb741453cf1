"""The web dashboard: see, correct and forget what the agent remembers."""
