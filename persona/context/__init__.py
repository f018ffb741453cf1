"""The context a model call gets: the persona's stable prefix, the observation log, the recent turns, the Memory Pack and the drift repair: context.py."""
