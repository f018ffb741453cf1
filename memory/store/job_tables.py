"""The scheduled jobs' tables: every run (job_runs) and how far each job's schedule was checked."""

from __future__ import annotations

from agentmemd.memory.store.database import Store, _in_chunks, dead_owners

RUN_COLUMNS = "id, name, trigger, started, finished, status, result, error"


class JobTables:
    def __init__(self, store: Store):
        self.store = store
        self.db = store.db

    def checked_through(self) -> dict[str, str]:
        return dict(self.store.conn.execute("SELECT name, checked_through FROM job_state").fetchall())

    def set_checked_through(self, name: str, at: str) -> None:
        self.db["job_state"].upsert({"name": name, "checked_through": at}, pk="name")

    def start_run(self, name: str, trigger: str, started: str) -> int:
        table = self.db["job_runs"]
        table.insert(
            {"name": name, "trigger": trigger, "started": started, "status": "running", "owner": self.store.owner}
        )
        return int(table.last_pk)

    def finish_run(self, run_id: int, finished: str, status: str, result: str | None, error: str | None) -> None:
        self.db["job_runs"].update(run_id, {"finished": finished, "status": status, "result": result, "error": error})

    def interrupt_running(self) -> None:
        """A run whose daemon died in the middle of it (kill -9, power loss) is over; another
        daemon's run at work (PostgreSQL) is not."""
        gone = dead_owners(self.store, "job_runs")
        for chunk, marks in _in_chunks(gone):
            self.store.conn.execute(
                f"UPDATE job_runs SET status = 'interrupted' WHERE status = 'running' AND owner IN ({marks})", chunk
            )
        self.store.conn.execute("UPDATE job_runs SET status = 'interrupted' WHERE status = 'running' AND owner IS NULL")

    def _select(self, rest: str, params: tuple) -> list[tuple]:
        return self.store.conn.execute(f"SELECT {RUN_COLUMNS} FROM job_runs " + rest, params).fetchall()

    def run(self, run_id: int) -> tuple:
        """One run as a tuple of RUN_COLUMNS."""
        return self._select("WHERE id = ?", (run_id,))[0]

    def latest_runs(self, name: str | None, limit: int) -> list[tuple]:
        """The newest ``limit`` runs (of one job, or all), oldest first."""
        where, params = ("WHERE name = ? ", (name,)) if name is not None else ("", ())
        return self._select(where + "ORDER BY id DESC LIMIT ?", params + (limit,))[::-1]

    def runs_started_between(self, start: str, end: str) -> list[tuple]:
        return self._select("WHERE started >= ? AND started < ? ORDER BY id", (start, end))

    def count_runs(self, name: str) -> int:
        return self.store.conn.execute("SELECT count(*) FROM job_runs WHERE name = ?", (name,)).fetchone()[0]
