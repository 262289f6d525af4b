"""Where a dialogue or a workflow keeps its turns while it runs: the run store (`StoredTurns`) or
memory (`MemoryTurns`, for tests and for a run that keeps nothing). The run they belong to is
opened, asked and closed by `proctor.runs.turns`.

`answered()` is what a resumed run starts from: the stored turns from position 1 on, up to the
first position that has no "ok" turn (a turn after a gap, or a failed one, is asked again)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from proctor.store.run_store import RunStore
from proctor.store.turns import Turn


class TurnLog(Protocol):
    run_id: str
    model: str

    def answered(self) -> list[Turn]: ...

    def save(self, turn: Turn) -> None: ...


def answered_prefix(turns: list[Turn]) -> list[Turn]:
    """The "ok" turns at positions 1, 2, … with no gap."""
    out: list[Turn] = []
    for turn in sorted(turns, key=lambda t: t.position):
        if turn.position != len(out) + 1 or turn.status != "ok":
            break
        out.append(turn)
    return out


@dataclass
class StoredTurns:
    """Turns of one model in one run of the store, each committed as it is saved."""

    store: RunStore
    run_id: str
    model: str

    def answered(self) -> list[Turn]:
        return answered_prefix(self.store.turns(self.run_id, self.model))

    def save(self, turn: Turn) -> None:
        self.store.add_turn(turn)


@dataclass
class MemoryTurns:
    run_id: str = "memory"
    model: str = ""
    turns: dict[int, Turn] = field(default_factory=dict)

    def answered(self) -> list[Turn]:
        return answered_prefix(list(self.turns.values()))

    def save(self, turn: Turn) -> None:
        held = self.turns.get(turn.position)
        if held is None or held.status != "ok":
            self.turns[turn.position] = turn
