"""What the agent makes of each person it meets in a chat (seed 004): impressions.py."""
