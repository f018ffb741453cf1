"""The memory proxy: an Anthropic/OpenAI-compatible listener that puts the Memory Pack into an
app's model calls and keeps the transcript, failing open."""
