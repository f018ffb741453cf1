"""Conversations: their turns, the Observer and Reflector steps and their background worker, every
turn a searchable episode, and the observation log."""
