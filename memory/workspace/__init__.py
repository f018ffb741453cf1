"""The Markdown workspace: parsing, syncing into memories, watching, safe write-back, the daily log
and the files another part owns."""
