"""The store's schema, as an append-only list of migrations.

Never edit a migration that has shipped: add a new function at the end of `MIGRATIONS`. The
version of a database is the number of migrations applied to it (`schema_migrations`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from proctor.errors import StoreError

Migration = Callable[[sqlite3.Connection], None]


def _m1_initial(conn: sqlite3.Connection) -> None:
    """The first schema, as it shipped. Longer than a function should be, because it is the
    five tables' definitions and a shipped migration is never edited, nor split."""
    statements = [
        """
        CREATE TABLE runs (
            id                TEXT PRIMARY KEY,
            task              TEXT NOT NULL,
            created_at        TEXT NOT NULL,
            dataset_hash      TEXT NOT NULL,
            dataset_size      INTEGER NOT NULL,
            generator_version TEXT NOT NULL,
            prompt_variant    TEXT NOT NULL,
            lang              TEXT NOT NULL,
            models            TEXT NOT NULL,  -- JSON list of model strings
            params            TEXT NOT NULL,  -- JSON of GenerationParams
            seed              INTEGER,
            fingerprint       TEXT NOT NULL,
            config            TEXT NOT NULL,  -- JSON; never holds keys (see guard.py)
            status            TEXT NOT NULL
                              CHECK (status IN ('running', 'complete', 'interrupted')),
            updated_at        TEXT NOT NULL
        )
        """,
        "CREATE INDEX runs_by_fingerprint ON runs (fingerprint, created_at)",
        "CREATE INDEX runs_by_created ON runs (created_at)",
        """
        CREATE TABLE samples (
            run_id    TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            position  INTEGER NOT NULL,
            sample_id TEXT NOT NULL,
            data      TEXT NOT NULL,  -- JSON of the Sample, metadata included
            PRIMARY KEY (run_id, position),
            UNIQUE (run_id, sample_id)
        )
        """,
        """
        CREATE TABLE records (
            run_id            TEXT NOT NULL,
            model             TEXT NOT NULL,
            sample_id         TEXT NOT NULL,
            epoch             INTEGER NOT NULL,
            status            TEXT NOT NULL CHECK (status IN ('ok', 'call_failed')),
            text              TEXT NOT NULL,
            finish_reason     TEXT NOT NULL,
            prompt_tokens     INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL,
            latency_s         REAL NOT NULL,
            attempts          INTEGER NOT NULL,
            prompt_variant    TEXT NOT NULL,
            lang              TEXT NOT NULL,
            reported_model    TEXT NOT NULL,
            error             TEXT NOT NULL,
            created_at        TEXT NOT NULL,
            PRIMARY KEY (run_id, model, sample_id, epoch),
            FOREIGN KEY (run_id, sample_id) REFERENCES samples (run_id, sample_id)
                ON DELETE CASCADE
        )
        """,
        """
        CREATE TABLE scores (
            run_id      TEXT NOT NULL,
            model       TEXT NOT NULL,
            sample_id   TEXT NOT NULL,
            epoch       INTEGER NOT NULL,
            outcome     TEXT NOT NULL,
            rule        TEXT NOT NULL,
            explanation TEXT NOT NULL,
            extracted   TEXT,
            normalized  TEXT,
            format_ok   INTEGER NOT NULL,
            PRIMARY KEY (run_id, model, sample_id, epoch),
            FOREIGN KEY (run_id, model, sample_id, epoch)
                REFERENCES records (run_id, model, sample_id, epoch) ON DELETE CASCADE
        )
        """,
        """
        CREATE TABLE gradings (
            run_id         TEXT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
            grader_version TEXT NOT NULL,
            graded_at      TEXT NOT NULL
        )
        """,
    ]
    for sql in statements:
        conn.execute(sql)


def _m2_judgements(conn: sqlite3.Connection) -> None:
    """Judge verdicts: one row per (answer, judge, order); the raw reply is kept so a verdict
    can be read again (`proctor score`) without calling the judge."""
    conn.execute(
        """
        CREATE TABLE judgements (
            run_id            TEXT NOT NULL,
            model             TEXT NOT NULL,  -- the judged model; "A vs B" when pairwise
            sample_id         TEXT NOT NULL,
            epoch             INTEGER NOT NULL,
            judge             TEXT NOT NULL,  -- the judge's model string
            ordering          TEXT NOT NULL,  -- "single", or "ab" / "ba" when pairwise
            status            TEXT NOT NULL CHECK (status IN ('ok', 'unscored', 'call_failed')),
            reply             TEXT NOT NULL,  -- the judge's last raw reply
            replies           TEXT NOT NULL,  -- JSON list of every raw reply, in order
            prompt            TEXT NOT NULL,  -- JSON list of the first prompt's messages
            rubric            TEXT NOT NULL,
            attempts          INTEGER NOT NULL,
            error             TEXT NOT NULL,
            prompt_tokens     INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL,
            latency_s         REAL NOT NULL,
            created_at        TEXT NOT NULL,
            PRIMARY KEY (run_id, model, sample_id, epoch, judge, ordering),
            FOREIGN KEY (run_id, sample_id) REFERENCES samples (run_id, sample_id)
                ON DELETE CASCADE
        )
        """
    )


def _m3_record_notes(conn: sqlite3.Connection) -> None:
    """What was changed in a reply before it was stored (invalid Unicode replaced, a key
    redacted), in words; "" for a reply stored exactly as it came. (Token counts a server gave
    that were not counts are stored as -1, "unknown": the columns stay NOT NULL.)"""
    conn.execute("ALTER TABLE records ADD COLUMN notes TEXT NOT NULL DEFAULT ''")


def _m4_conversation_turns(conn: sqlite3.Connection) -> None:
    """Dialogue turns and workflow steps: one row per model or tool call, in the order they
    were made, committed as each one ends, so a killed dialogue or workflow resumes at the first
    position with no "ok" row and `proctor score` re-grades the stored replies."""
    conn.execute(
        """
        CREATE TABLE turns (
            run_id            TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            model             TEXT NOT NULL,
            position          INTEGER NOT NULL,  -- 1-based, in the order asked
            step              TEXT NOT NULL,     -- the dialogue stage or the workflow step
            kind              TEXT NOT NULL CHECK (kind IN ('model', 'tool')),
            -- cancelled: stopped in flight at a workflow's wall-time deadline
            status            TEXT NOT NULL CHECK (status IN ('ok', 'call_failed', 'cancelled')),
            asked             TEXT NOT NULL,     -- the user message, or the tool's JSON args
            bindings          TEXT NOT NULL,     -- JSON: earlier values filled into `asked`
            text              TEXT NOT NULL,     -- the raw reply, or the tool's answer
            finish_reason     TEXT NOT NULL,
            prompt_tokens     INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL,
            usage_reported    INTEGER NOT NULL,  -- 0: the server sent none (tokens estimated)
            latency_s         REAL NOT NULL,
            attempts          INTEGER NOT NULL,
            reported_model    TEXT NOT NULL,
            error             TEXT NOT NULL,
            created_at        TEXT NOT NULL,
            PRIMARY KEY (run_id, model, position)
        )
        """
    )


def _m5_response_cache(conn: sqlite3.Connection) -> None:
    """The response cache shared by every run of the results folder: one reply per request key
    (a hash of everything that decides the reply, `proctor.calling.cache_key`) and key owner (a
    fingerprint of the API key, never the key), with the run that asked for it; and, on each
    record, the run whose cached answer it is ("" when it was asked for its own run)."""
    conn.execute(
        """
        CREATE TABLE response_cache (
            key               TEXT NOT NULL,  -- sha256 of the canonical request
            owner             TEXT NOT NULL,  -- fingerprint of the API key's owner; "" no key
            model             TEXT NOT NULL,  -- the model string that asked
            text              TEXT NOT NULL,
            finish_reason     TEXT NOT NULL,
            prompt_tokens     INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL,
            latency_s         REAL NOT NULL,
            reported_model    TEXT NOT NULL,
            source_run        TEXT NOT NULL,  -- the run that asked (and paid)
            source_sample     TEXT NOT NULL,
            source_epoch      INTEGER NOT NULL,
            created_at        TEXT NOT NULL,
            last_used_at      TEXT NOT NULL,
            hits              INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (key, owner)
        )
        """
    )
    conn.execute("CREATE INDEX response_cache_by_use ON response_cache (last_used_at)")
    conn.execute("ALTER TABLE records ADD COLUMN cached_from TEXT NOT NULL DEFAULT ''")


def _m6_imported_verdicts(conn: sqlite3.Connection) -> None:
    """The verdicts of another harness on a run imported from its log (`proctor import`): a
    second grader beside proctor's, one row per answer and grader of theirs."""
    conn.execute(
        """
        CREATE TABLE imported_verdicts (
            run_id      TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            model       TEXT NOT NULL,
            sample_id   TEXT NOT NULL,
            epoch       INTEGER NOT NULL,
            grader      TEXT NOT NULL,  -- e.g. "lm-eval strict-match exact_match"
            outcome     TEXT NOT NULL CHECK (outcome IN ('correct', 'wrong', 'unscored')),
            value       TEXT NOT NULL,  -- their value as logged ("1", "C", "P")
            credit      REAL,           -- the value as they average it; NULL when they do not
            extracted   TEXT NOT NULL,  -- what their extraction took from the reply
            explanation TEXT NOT NULL,
            PRIMARY KEY (run_id, model, sample_id, epoch, grader)
        )
        """
    )


def _m7_provider_batches(conn: sqlite3.Connection) -> None:
    """Batches submitted to a provider's batch API (`proctor run --batch`): one row per batch,
    written before it is submitted (state "submitting", with the token sent along) and given the
    provider's id as soon as the submit answers, so a run killed at any moment and started again
    finds every batch it sent and submits none of its requests twice; and, on each record, the
    batch it was asked in (its cost is the batch price)."""
    conn.execute(
        """
        CREATE TABLE provider_batches (
            run_id     TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            model      TEXT NOT NULL,
            token      TEXT NOT NULL,             -- ours, sent with the batch
            batch_id   TEXT NOT NULL DEFAULT '',  -- the provider's; '' until the submit answered
            requests   TEXT NOT NULL,             -- JSON [[custom_id, sample_id, epoch], ...]
            state      TEXT NOT NULL
                       CHECK (state IN ('submitting', 'submitted', 'collected', 'abandoned')),
            detail     TEXT NOT NULL DEFAULT '',  -- how it ended, in words
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (run_id, model, token)
        )
        """
    )
    conn.execute("ALTER TABLE records ADD COLUMN batch_id TEXT NOT NULL DEFAULT ''")


def _m8_turn_grades(conn: sqlite3.Connection) -> None:
    """The grade of a dialogue or workflow run (issue 15): its scores as the reports show them
    (outcome, metrics, a row per turn, problems) and the whole graded result, one row per run and
    model, replaced when `proctor score` grades the stored turns again."""
    conn.execute(
        """
        CREATE TABLE turn_grades (
            run_id         TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            model          TEXT NOT NULL,
            grader_version TEXT NOT NULL,
            grade          TEXT NOT NULL,  -- JSON: the run's scores (proctor.stats.turn_scores)
            graded_at      TEXT NOT NULL,
            PRIMARY KEY (run_id, model)
        )
        """
    )


def _m9_human_verdicts(conn: sqlite3.Connection) -> None:
    """People's verdicts on a run's replies (issue 32): append-only, one row per verdict given;
    the newest row of a reviewer on a reply supersedes their older ones, which stay (drift is
    measured on them). `reply_hash` is the sha256 of the reply the reviewer was shown, so a
    verdict never attaches to a reply it was not given on; `blind` marks a re-grade made without
    seeing the reviewer's earlier verdict."""
    conn.execute(
        """
        CREATE TABLE human_verdicts (
            seq         INTEGER PRIMARY KEY AUTOINCREMENT,
            run_id      TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            model       TEXT NOT NULL,
            sample_id   TEXT NOT NULL,
            epoch       INTEGER NOT NULL,
            reviewer    TEXT NOT NULL,
            verdict     TEXT NOT NULL CHECK (verdict IN ('correct', 'wrong', 'skip')),
            note        TEXT NOT NULL,
            reply_hash  TEXT NOT NULL,  -- sha256 hex of the reply as shown
            blind       INTEGER NOT NULL CHECK (blind IN (0, 1)),
            reviewed_at TEXT NOT NULL,  -- ISO 8601, UTC
            FOREIGN KEY (run_id, sample_id) REFERENCES samples (run_id, sample_id)
                ON DELETE CASCADE
        )
        """
    )
    conn.execute(
        "CREATE INDEX human_verdicts_by_reply"
        " ON human_verdicts (run_id, model, sample_id, epoch, reviewer, seq)"
    )


def _m10_eval_sets(conn: sqlite3.Connection) -> None:
    """Eval sets (issue 29): several tasks asked of the same models under one id. One row per
    set (its plan as written, so `--resume SET` alone rebuilds it; its fingerprint, so the same
    command finds it unfinished) and one row per task of the set, given its run's id as soon as
    that run exists."""
    conn.execute(
        """
        CREATE TABLE eval_sets (
            id          TEXT PRIMARY KEY,
            name        TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            plan        TEXT NOT NULL,  -- JSON: models and each task's options (no keys)
            status      TEXT NOT NULL CHECK (status IN ('running', 'complete')),
            created_at  TEXT NOT NULL,
            updated_at  TEXT NOT NULL
        )
        """
    )
    conn.execute("CREATE INDEX eval_sets_by_fingerprint ON eval_sets (fingerprint, created_at)")
    conn.execute(
        """
        CREATE TABLE eval_set_runs (
            set_id   TEXT NOT NULL REFERENCES eval_sets (id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            task     TEXT NOT NULL,
            run_id   TEXT NOT NULL DEFAULT '',  -- '' until the task's run exists
            PRIMARY KEY (set_id, position)
        )
        """
    )


def _m11_viewer_indexes(conn: sqlite3.Connection) -> None:
    """Indexes for the viewer's pages of big folders (issue 29). The runs list counts every
    answer and grade per (run, model) (`browse.tallies`): two covering indexes let it read
    narrow index rows instead of every record's reply text. An item's page reads one sample's
    answers of every model (`browse.item_answers`): an index by sample finds them without
    walking the run. Tested by the queries' plans (tests/store/test_viewer_indexes.py)."""
    conn.execute("CREATE INDEX records_tally ON records (run_id, model, sample_id, epoch, status)")
    conn.execute("CREATE INDEX scores_tally ON scores (run_id, model, sample_id, epoch, outcome)")
    conn.execute("CREATE INDEX records_by_sample ON records (run_id, sample_id, model, epoch)")


def _m12_board_cells(conn: sqlite3.Connection) -> None:
    """The leaderboard's cells of each run (issue 29): per model its counts, accuracy and
    interval, tokens, and its per-item right/wrong as one byte per item (`store/board_cells.py`),
    so a board of 500 models × 10 tasks reads 5,000 small rows instead of a million answers.
    `board_runs` says a run's cells are there (and for which grader version); triggers drop it
    (and its cells, by the cascade) whenever the run's records, grades, grader version, samples
    or plan change, so cells never outlive what they were computed from."""
    conn.execute(
        """
        CREATE TABLE board_runs (
            run_id         TEXT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
            grader_version TEXT,            -- NULL: never graded
            items          TEXT NOT NULL,   -- JSON list of "sample#epoch", in records order
            recipe         INTEGER NOT NULL, -- how they were computed (a newer proctor's differ)
            computed_at    TEXT NOT NULL
        )
        """
    )
    conn.execute(
        """
        CREATE TABLE board_cells (
            run_id           TEXT NOT NULL REFERENCES board_runs (run_id) ON DELETE CASCADE,
            model            TEXT NOT NULL,
            n_items          INTEGER NOT NULL,
            n_scored         INTEGER NOT NULL,
            correct          INTEGER NOT NULL,
            accuracy         REAL,
            ci_low           REAL,
            ci_high          REAL,
            not_asked        INTEGER NOT NULL,
            failed           INTEGER NOT NULL,
            prompt_tokens    INTEGER NOT NULL,  -- asked live (not reused, not batched)
            completion_tokens INTEGER NOT NULL,
            batch_prompt_tokens INTEGER NOT NULL,
            batch_completion_tokens INTEGER NOT NULL,
            marks            BLOB NOT NULL,     -- per item of board_runs.items: 0, 1, 255
            PRIMARY KEY (run_id, model)
        )
        """
    )
    for table in ("records", "scores", "gradings", "samples"):
        for event in ("INSERT", "UPDATE", "DELETE"):
            row = "OLD" if event == "DELETE" else "NEW"
            conn.execute(
                f"CREATE TRIGGER board_{table}_{event.lower()} AFTER {event} ON {table}"
                f" WHEN EXISTS (SELECT 1 FROM board_runs WHERE run_id = {row}.run_id)"
                f" BEGIN DELETE FROM board_runs WHERE run_id = {row}.run_id; END"
            )
    conn.execute(
        "CREATE TRIGGER board_runs_plan AFTER UPDATE OF models, dataset_size, config ON runs"
        " BEGIN DELETE FROM board_runs WHERE run_id = NEW.id; END"
    )


MIGRATIONS: tuple[Migration, ...] = (
    _m1_initial,
    _m2_judgements,
    _m3_record_notes,
    _m4_conversation_turns,
    _m5_response_cache,
    _m6_imported_verdicts,
    _m7_provider_batches,
    _m8_turn_grades,
    _m9_human_verdicts,
    _m10_eval_sets,
    _m11_viewer_indexes,
    _m12_board_cells,
)
SCHEMA_VERSION = len(MIGRATIONS)


def _version(conn: sqlite3.Connection) -> int:
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    if exists is None:
        return 0
    row = conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
    return int(row[0] or 0)


def _guard(version: int, db_path: Path) -> None:
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"run store {db_path} has schema version {version}, but this proctor knows only "
            f"up to {SCHEMA_VERSION}: upgrade proctor to read it"
        )


def migrate(conn: sqlite3.Connection, db_path: Path) -> None:
    """Bring the database up to `SCHEMA_VERSION`; refuse one written by a newer proctor.

    Safe when several processes open a fresh file at once: the version is read again under the
    write lock, so each migration runs exactly once.
    """
    current = _version(conn)
    _guard(current, db_path)
    if current == SCHEMA_VERSION:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
        )
        current = _version(conn)
        _guard(current, db_path)
        for version in range(current + 1, SCHEMA_VERSION + 1):
            MIGRATIONS[version - 1](conn)
            conn.execute(
                "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                (version, datetime.now(UTC).isoformat()),
            )
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
