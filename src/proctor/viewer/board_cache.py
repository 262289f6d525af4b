"""The viewer's leaderboards, each read once per state of the store, and read ahead.

A leaderboard reads each run's board cells (`proctor.runs.leaderboard`): a fraction of a second
over 500 models × 10 tasks once they are stored, but the first time a run is ranked its cells
are computed from every answer it has (over a million answers, most of a minute). So the viewer
keeps the board it read, for as long as the store is unchanged (`store_state`: the database file
and its write-ahead log, as the file system sees them; any commit changes one), starts reading
the whole folder's board when it starts, and a request for a board not read yet waits a moment,
then gets a page that says it is being read and reloads itself; a board is read by one thread,
however many ask for it. The cells it lacks are stored first (`prepare_board`), and the board is
kept for the state of the store after that write: its own writing does not make it stale.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from proctor.errors import ProctorError
from proctor.runs.leaderboard import BoardReading, prepare_board, read_leaderboard
from proctor.store.run_store import DB_NAME

WAIT_S = 0.8
"""How long a request waits for a board being read before it is told to come back."""

State = tuple[tuple[int, int], ...]


def store_state(results_dir: Path) -> State:
    """(modified ns, size) of the store's database and its write-ahead log: changed by every
    commit (into the log) and every checkpoint (into the database). An empty log is no log:
    SQLite makes one when a connection opens and removes it when the last one closes, and a
    reading of the board must not change the state it was read for."""
    out = []
    for name in (DB_NAME, DB_NAME + "-wal"):
        try:
            st = (results_dir / name).stat()
        except FileNotFoundError:
            out.append((0, 0))
        else:
            out.append((st.st_mtime_ns, st.st_size) if st.st_size else (0, 0))
    return tuple(out)


class BoardCache:
    """Boards by the runs and sets they rank (() for the whole folder), each for one state."""

    def __init__(self, results_dir: Path) -> None:
        self.results_dir = results_dir
        self._lock = threading.Lock()
        self._boards: dict[tuple[str, ...], tuple[State, BoardReading | ProctorError]] = {}
        self._reading: dict[tuple[str, ...], threading.Thread] = {}
        """The read under way for each key (one at a time: a request meanwhile waits for it)."""

    def read_ahead(self) -> None:
        """Start reading the whole folder's board (the viewer's own start)."""
        self._start((), store_state(self.results_dir))

    def reading(self, refs: Sequence[str], wait_s: float = WAIT_S) -> BoardReading | None:
        """The board of `refs` for the store as it is now; None while it is still being read
        (after `wait_s`). A ProctorError the reading raised (a ref that names nothing) is
        raised again."""
        key, state = tuple(refs), store_state(self.results_dir)
        found = self._found(key, state)
        if found is None:
            self._start(key, state).join(wait_s)
            found = self._found(key, store_state(self.results_dir))
        if isinstance(found, ProctorError):
            raise found
        return found

    def _found(self, key: tuple[str, ...], state: State) -> BoardReading | ProctorError | None:
        with self._lock:
            held = self._boards.get(key)
        return held[1] if held is not None and held[0] == state else None

    def _start(self, key: tuple[str, ...], state: State) -> threading.Thread:
        with self._lock:
            thread = self._reading.get(key)
            if thread is None:
                thread = threading.Thread(
                    target=self._read, args=(key, state), daemon=True, name="leaderboard"
                )
                self._reading[key] = thread
                thread.start()
        return thread

    def _read(self, key: tuple[str, ...], state: State) -> None:
        got: BoardReading | ProctorError | None = None
        try:
            prepare_board(self.results_dir, key)
            state = store_state(self.results_dir)  # the cells just stored are part of it
            got = read_leaderboard(self.results_dir, key)
        except ProctorError as e:
            got = e
        finally:
            with self._lock:  # kept and no longer under way at once: no second read between
                if got is not None:
                    self._boards[key] = (state, got)
                self._reading.pop(key, None)
