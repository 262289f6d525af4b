"""`RunStore`: runs, their samples, every raw answer and its grade, in one SQLite file.

`RunStore` holds the connection and the transactions; each table's SQL lives in a module of its
own (`runs`, `samples`, `records`, `scores`, `judgements`, `turns`, `turn_grades`, and the
reading of answers by pages in `pages`), which RunStore's methods delegate to. The values they
return are re-exported here, where callers have always imported them from.

Layout on disk: `<results_dir>/proctor.db` (WAL) and `<results_dir>/runs/<run_id>/` for files a
run writes beside the database. Several processes may write the same file at once (one run
each); every write is one short `BEGIN IMMEDIATE` transaction, so writers queue on the 30 s busy
timeout instead of failing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from proctor._util.closing import Closing
from proctor.errors import StoreError
from proctor.store import connection
from proctor.store import human_verdicts as human_verdicts_table
from proctor.store import judgements as judgements_table
from proctor.store import pages as paging
from proctor.store import records as records_table
from proctor.store import runs as runs_table
from proctor.store import samples as samples_table
from proctor.store import scores as scores_table
from proctor.store import turn_grades as turn_grades_table
from proctor.store import turns as turns_table
from proctor.store.connection import closed_on_error, connect
from proctor.store.human_verdicts import HumanVerdict
from proctor.store.judgements import JUDGEMENT_STATUSES, Judgement, JudgementStatus
from proctor.store.pages import AnswerWindow
from proctor.store.runs import LATEST, RUN_STATUSES, RunStatus, RunSummaryRow
from proctor.store.schema import migrate
from proctor.store.scores import ScoreRow, StoredScore, same_grade
from proctor.store.turns import Turn
from proctor.types import GradedItem, Record, RunInfo, Sample, Score

__all__ = [
    "DB_NAME",
    "JUDGEMENT_STATUSES",
    "LATEST",
    "RUNS_DIR",
    "RUN_STATUSES",
    "AnswerWindow",
    "HumanVerdict",
    "Judgement",
    "JudgementStatus",
    "RunStatus",
    "RunStore",
    "RunSummaryRow",
    "ScoreRow",
    "StoredScore",
    "same_grade",
]

DB_NAME = "proctor.db"
RUNS_DIR = "runs"


class RunStore(Closing):
    """The run store of one results folder.

    One RunStore holds one SQLite connection. It may be handed between threads
    (`check_same_thread=False`) but must be used by one thread at a time; open one RunStore per
    process (or per thread) for parallel work.
    """

    def __init__(self, results_dir: Path, conn: sqlite3.Connection) -> None:
        """Use `RunStore.open`."""
        self._results_dir = results_dir
        self._conn: sqlite3.Connection | None = conn

    @classmethod
    def open(cls, results_dir: Path) -> RunStore:
        """Open (creating the folder and database if needed) and migrate the store."""
        results_dir = Path(results_dir)
        try:
            results_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(f"cannot create results folder {results_dir}: {e}") from e
        db_path = results_dir / DB_NAME
        conn = connect(db_path)
        with closed_on_error(conn, f"migrate run store {db_path}"):
            migrate(conn, db_path)
        conn.row_factory = sqlite3.Row
        return cls(results_dir, conn)

    @property
    def results_dir(self) -> Path:
        return self._results_dir

    @property
    def db_path(self) -> Path:
        return self._results_dir / DB_NAME

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # -- transactions -------------------------------------------------------------------------

    @property
    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(f"run store {self.db_path} is closed")
        return self._conn

    def transaction(self, what: str, *, write: bool) -> AbstractContextManager[sqlite3.Connection]:
        """One transaction on the store's connection, for the store's table modules (`runs`,
        `records`, `response_cache`, ...); errors become StoreError saying `what` failed."""
        return self._tx(what, write=write)

    def _tx(self, what: str, *, write: bool) -> AbstractContextManager[sqlite3.Connection]:
        return connection.transaction(self._db, self.db_path, what, write=write)

    # -- runs ---------------------------------------------------------------------------------

    def create_run(
        self,
        info: RunInfo,
        samples: Sequence[Sample],
        fingerprint: str,
        config: Mapping[str, object],
    ) -> None:
        """Store a new run (status "running") and all its samples, in one transaction."""
        runs_table.create(self, info, samples, fingerprint, config)

    def find_resumable(self, fingerprint: str) -> str | None:
        """The newest run with this fingerprint that is not complete, if any."""
        return runs_table.find_resumable(self, fingerprint)

    def run_info(self, run_id: str) -> RunInfo:
        return runs_table.info(self, run_id)

    def run_config(self, run_id: str) -> dict[str, object]:
        """The config mapping given to `create_run`, as stored (JSON)."""
        return runs_table.config(self, run_id)

    def add_run_config(self, run_id: str, values: Mapping[str, object]) -> None:
        """Add keys to a run's config; a key already there keeps its value."""
        runs_table.add_config(self, run_id, values)

    def run_status(self, run_id: str) -> RunStatus:
        return runs_table.status(self, run_id)

    def set_status(self, run_id: str, status: RunStatus) -> None:
        runs_table.set_status(self, run_id, status)

    def samples(self, run_id: str) -> list[Sample]:
        """The run's samples, in the order they were given to `create_run`."""
        return samples_table.read(self, run_id)

    def list_runs(self) -> list[RunSummaryRow]:
        """Every run, newest first."""
        return runs_table.list_runs(self)

    def resolve(self, ref: str) -> str:
        """The run id meant by `ref`: an id, a unique prefix of one, a path ending in one, or
        "latest" (the newest run). Every command that takes a RUN reads it here."""
        return runs_table.resolve(self, ref)

    def run_dir(self, run_id: str) -> Path:
        """`<results_dir>/runs/<run_id>`, created if needed."""
        return runs_table.make_dir(self, self._results_dir / RUNS_DIR, run_id)

    # -- records ------------------------------------------------------------------------------

    def add_records(self, records: Sequence[Record]) -> None:
        """Store records in one transaction, committed before this returns; a stored "ok"
        record is never overwritten, a stored "call_failed" one is replaced."""
        records_table.add(self, records)

    def missing(self, run_id: str, model: str, epochs: int = 1) -> list[tuple[str, int]]:
        """(sample id, epoch) pairs with no stored record for `model`, in sample order."""
        return records_table.missing(self, run_id, model, epochs)

    def failed(self, run_id: str, model: str) -> list[str]:
        """Ids of samples (in sample order) with a "call_failed" record for `model`."""
        return records_table.failed(self, run_id, model)

    def records(self, run_id: str, model: str | None = None) -> list[Record]:
        """Stored records, ordered by model, then sample position, then epoch."""
        return records_table.read(self, run_id, model)

    def answer_pages(
        self, run_id: str, page_size: int = 5000
    ) -> Iterator[list[tuple[Record, Sample]]]:
        """Every stored record with its sample, in `records` order, `page_size` samples (of one
        model, all their epochs) at a time, each page read in a transaction of its own."""
        return paging.answer_pages(self, run_id, page_size)

    def answer_windows(self, run_id: str, page_size: int = 5000) -> list[AnswerWindow]:
        """The pages of `answer_pages`, in its order, as windows `answer_page` reads (another
        process may read them from its own store)."""
        return paging.answer_windows(self, run_id, page_size)

    def answer_page(
        self, window: AnswerWindow, *, scored: bool = True, samples: dict[int, Sample] | None = None
    ) -> list[tuple[Record, Sample, StoredScore | None]]:
        """The records of one window with their samples and (when `scored`) stored grades, in
        `records` order."""
        return paging.answer_page(self, window, scored=scored, samples=samples)

    def count_records(self, run_id: str) -> dict[str, int]:
        """Stored records per model; every model of the run appears, with 0 if it has none."""
        return records_table.count(self, run_id)

    # -- scores -------------------------------------------------------------------------------

    def save_scores(
        self,
        run_id: str,
        scores: Sequence[tuple[str, str, int, Score]],
        grader_version: str,
    ) -> None:
        """Replace every score of the run with `scores` ((model, sample id, epoch, score))."""
        scores_table.save(self, run_id, scores, grader_version)

    def save_regraded_pages(
        self,
        run_id: str,
        pages: Iterable[Sequence[tuple[ScoreRow, StoredScore | None]]],
        grader_version: str,
    ) -> int:
        """Save a re-grade of every record of the run, page by page, writing only the grades
        that differ from the stored ones; how many were written."""
        return scores_table.save_regraded_pages(self, run_id, pages, grader_version)

    def add_scores(self, run_id: str, scores: Sequence[ScoreRow]) -> None:
        """Store the grades of records that have just been graded, in one transaction; the
        run's grader version is left as it is."""
        scores_table.add(self, run_id, scores)

    def mark_graded(self, run_id: str, grader_version: str) -> None:
        """Record that the run's stored grades are made by `grader_version`."""
        scores_table.mark_graded(self, run_id, grader_version)

    def ungraded(self, run_id: str) -> list[tuple[Record, Sample]]:
        """The stored records that have no grade yet, with their samples, in `records` order."""
        return scores_table.ungraded(self, run_id)

    def graded_items(self, run_id: str, ungraded: Score) -> list[GradedItem]:
        """Every stored record with its sample and its stored grade (`ungraded` for a record
        never graded), in `records` order: what every report, gate and comparison reads."""
        return scores_table.graded_items(self, run_id, ungraded)

    def graded_item_stream(
        self, run_id: str, ungraded: Score, page_size: int = 5000, model: str | None = None
    ) -> Iterator[GradedItem]:
        """The items of `graded_items` (of `model`, when named), in its order, read
        `page_size` samples (of one model) at a time, each page in a transaction of its own: a
        run of any size in one page's memory. Whoever consumes it may use the store between
        items."""
        return paging.graded_items(self, run_id, ungraded, page_size, model)

    def max_epoch(self, run_id: str) -> int:
        """The highest epoch of the run's stored records (0 when it has none)."""
        return records_table.max_epoch(self, run_id)

    def scores(self, run_id: str) -> dict[tuple[str, str, int], Score]:
        """The run's scores keyed by (model, sample id, epoch)."""
        return scores_table.read(self, run_id)

    def grader_version(self, run_id: str) -> str | None:
        """The grader version of the last `save_scores`, or None if never graded."""
        return scores_table.grader_version(self, run_id)

    # -- judgements ---------------------------------------------------------------------------

    def add_judgements(self, judgements: Sequence[Judgement]) -> None:
        """Store judge verdicts in one transaction; a stored "call_failed" one is replaced."""
        judgements_table.add(self, judgements)

    def judgements(self, run_id: str, judge: str | None = None) -> list[Judgement]:
        """Stored judge verdicts of a run (of one judge, when named)."""
        return judgements_table.read(self, run_id, judge)

    # -- human verdicts -----------------------------------------------------------------------

    def add_human_verdicts(self, run_id: str, verdicts: Sequence[HumanVerdict]) -> int:
        """Append people's verdicts in one transaction (each checked against the stored reply's
        content hash; any mismatch stores none); how many were new."""
        return human_verdicts_table.add(self, run_id, verdicts)

    def human_verdicts(self, run_id: str) -> list[HumanVerdict]:
        """Every verdict people gave on the run, in the order they were stored."""
        return human_verdicts_table.read(self, run_id)

    # -- dialogue turns and workflow steps -----------------------------------------------------

    def add_turn(self, turn: Turn) -> None:
        """Store one turn, committed before this returns; a stored "ok" turn is kept."""
        turns_table.add(self, turn)

    def save_turn_grade(
        self, run_id: str, model: str, grader_version: str, grade: Mapping[str, Any]
    ) -> None:
        """Store the grade of a dialogue or workflow run's turns (JSON), replacing the last."""
        turn_grades_table.save(self, run_id, model, grader_version, grade)

    def turn_grades(self, run_id: str) -> dict[str, tuple[str, dict[str, Any]]]:
        """model → (grader version, grade) of a dialogue or workflow run; {} if never graded."""
        return turn_grades_table.read(self, run_id)

    def turns(self, run_id: str, model: str) -> list[Turn]:
        """The stored turns of `model` in run `run_id`, in the order they were asked."""
        return turns_table.read(self, run_id, model)
