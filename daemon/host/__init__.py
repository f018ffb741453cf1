"""The daemon process: its data-dir lock, store and reader threads, scheduler, workspace watcher,
start-up catch-up and the dashboard it may start, around the socket it serves (``process.py``)."""
