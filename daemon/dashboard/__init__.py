"""The web dashboard (issue 18): see, correct and forget what the agent remembers."""
