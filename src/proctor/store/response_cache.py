"""The response cache of a results folder (table `response_cache`, migration 5): one stored reply
per request key and key owner, shared by every run of the folder.

The key is made in `proctor.calling.cache_key` (a hash of everything that decides the reply);
this module only keeps and finds entries. An entry is written when a run stores an "ok" answer
that it asked for itself, never for a failed call nor for an answer that came from the cache.
The first answer for a key wins: a later one with the same key leaves it as it was.

An entry is found only under the owner it was written with (the fingerprint of the API key it
was paid with, "" for none), unless the caller asks across owners (`any_owner`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from proctor.store import codec
from proctor.store.tables import Transactions
from proctor.store.tables import now as _now
from proctor.types import FinishReason, Record, Usage

_CHUNK = 500
"""Keys per `SELECT … IN (…)`: well under SQLite's limit on bound parameters."""


@dataclass(frozen=True)
class CachedReply:
    """A stored reply, and where it came from."""

    key: str
    owner: str
    text: str
    finish_reason: FinishReason
    usage: Usage
    latency_s: float
    reported_model: str
    source_run: str


@dataclass(frozen=True)
class CacheEntry:
    """One answer to remember: its key and owner, and the record that holds the reply."""

    key: str
    owner: str
    record: Record


@dataclass(frozen=True)
class CacheStats:
    entries: int
    owners: int
    prompt_tokens: int
    completion_tokens: int
    hits: int
    by_model: Mapping[str, tuple[int, int]]
    """Model string → (entries, times reused)."""
    oldest_use: str | None
    newest_use: str | None


def lookup(
    store: Transactions, keys: Sequence[str], owner: str, *, any_owner: bool = False
) -> dict[str, CachedReply]:
    """The stored reply of each key that has one (under `owner`, or any owner), and mark each
    found entry used now."""
    found: dict[str, CachedReply] = {}
    wanted = list(dict.fromkeys(keys))
    now = _now()
    with store.transaction("read the response cache", write=True) as db:
        for where, args in _matching(wanted, owner, any_owner):
            rows = db.execute(
                "SELECT key, owner, text, finish_reason, prompt_tokens, completion_tokens,"
                " latency_s, reported_model, source_run FROM response_cache"
                f" WHERE {where} ORDER BY created_at, rowid",
                args,
            ).fetchall()
            for r in rows:
                key = str(r[0])
                if key in found:  # across owners: the earliest answer wins
                    continue
                found[key] = CachedReply(
                    key=key,
                    owner=str(r[1]),
                    text=str(r[2]),
                    finish_reason=codec.literal(r[3], codec.FINISH_REASONS, "finish reason"),
                    usage=Usage(codec.count_from_column(r[4]), codec.count_from_column(r[5])),
                    latency_s=float(r[6]),
                    reported_model=str(r[7]),
                    source_run=str(r[8]),
                )
        db.executemany(
            "UPDATE response_cache SET last_used_at = ?, hits = hits + 1"
            " WHERE key = ? AND owner = ?",
            ((now, c.key, c.owner) for c in found.values()),
        )
    return found


def held(
    store: Transactions, keys: Sequence[str], owner: str, *, any_owner: bool = False
) -> set[str]:
    """The keys that have a stored reply (under `owner`, or any owner), marking nothing used:
    what a run would reuse, for `proctor run --estimate`."""
    found: set[str] = set()
    with store.transaction("read the response cache", write=False) as db:
        for where, args in _matching(list(dict.fromkeys(keys)), owner, any_owner):
            rows = db.execute(f"SELECT key FROM response_cache WHERE {where}", args)
            found.update(str(r[0]) for r in rows)
    return found


def _matching(
    keys: Sequence[str], owner: str, any_owner: bool
) -> Iterable[tuple[str, tuple[object, ...]]]:
    """`WHERE` clauses, with their arguments, for `keys` in chunks (under `owner` unless
    `any_owner`)."""
    for start in range(0, len(keys), _CHUNK):
        chunk = keys[start : start + _CHUNK]
        where = f"key IN ({', '.join('?' for _ in chunk)})" + (
            "" if any_owner else " AND owner = ?"
        )
        yield where, ((*chunk,) if any_owner else (*chunk, owner))


def remember(store: Transactions, entries: Iterable[CacheEntry]) -> None:
    """Store the reply of each "ok" record asked for its own run (others are skipped)."""
    now = _now()
    rows = [
        (
            e.key,
            e.owner,
            e.record.model,
            codec.storable(e.record.text),
            e.record.finish_reason,
            codec.count_to_column(e.record.usage.prompt_tokens),
            codec.count_to_column(e.record.usage.completion_tokens),
            e.record.latency_s,
            e.record.reported_model,
            e.record.run_id,
            e.record.sample_id,
            e.record.epoch,
            now,
            now,
        )
        for e in entries
        if e.record.status == "ok" and not e.record.cached_from
    ]
    if not rows:
        return
    with store.transaction("write the response cache", write=True) as db:
        db.executemany(
            "INSERT INTO response_cache (key, owner, model, text, finish_reason, prompt_tokens,"
            " completion_tokens, latency_s, reported_model, source_run, source_sample,"
            " source_epoch, created_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
            " ?, ?, ?) ON CONFLICT (key, owner) DO NOTHING",
            rows,
        )


def stats(store: Transactions) -> CacheStats:
    with store.transaction("read the response cache", write=False) as db:
        total = db.execute(
            "SELECT COUNT(*), COUNT(DISTINCT owner), COALESCE(SUM(MAX(prompt_tokens, 0)), 0),"
            " COALESCE(SUM(MAX(completion_tokens, 0)), 0), COALESCE(SUM(hits), 0),"
            " MIN(last_used_at), MAX(last_used_at) FROM response_cache"
        ).fetchone()
        models = db.execute(
            "SELECT model, COUNT(*), SUM(hits) FROM response_cache GROUP BY model ORDER BY model"
        ).fetchall()
    return CacheStats(
        entries=int(total[0]),
        owners=int(total[1]),
        prompt_tokens=int(total[2]),
        completion_tokens=int(total[3]),
        hits=int(total[4]),
        by_model={str(m[0]): (int(m[1]), int(m[2])) for m in models},
        oldest_use=None if total[5] is None else str(total[5]),
        newest_use=None if total[6] is None else str(total[6]),
    )


def prune(store: Transactions, unused_since: datetime) -> int:
    """Delete the entries not used (written or reused) since `unused_since`; how many went.
    Runs keep their records: only the cache forgets."""
    with store.transaction("prune the response cache", write=True) as db:
        cursor = db.execute(
            "DELETE FROM response_cache WHERE last_used_at < ?", (unused_since.isoformat(),)
        )
        return int(cursor.rowcount)
