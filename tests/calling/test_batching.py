"""calling/batching.py's restart rules, with a scripted batch API and the store's ledger: a batch
whose submit was never answered is adopted when the provider has it and submitted (once) when it
does not; a submitted one is polled, never submitted again."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from proctor.calling.batching import BatchAnswer, BatchItem, BatchPolicy, ask_in_batches
from proctor.providers.batch import BatchRequest, BatchResult, BatchState
from proctor.store import RunStore
from proctor.store.batches import StoreBatchLedger
from proctor.types import Completion, GenerationParams, Message, Prompt, RunInfo, Sample, Usage


class ScriptedBatches:
    def __init__(self, known: dict[str, str] | None = None) -> None:
        self.known = dict(known or {})  # token -> batch id the "provider" already has
        self.submits: list[list[str]] = []
        self.requests: dict[str, list[str]] = {}

    async def submit(self, requests: Sequence[BatchRequest], token: str) -> str:
        batch_id = f"b{len(self.submits)}"
        self.submits.append([r.custom_id for r in requests])
        self.requests[batch_id] = [r.custom_id for r in requests]
        return batch_id

    async def find(
        self, token: str, size: int, taken: frozenset[str] = frozenset()
    ) -> str | None:
        found = self.known.get(token)
        return None if found in taken else found

    async def state(self, batch_id: str) -> BatchState:
        n = len(self.requests.get(batch_id, []))
        return BatchState(batch_id, "completed", n, n)

    async def results(self, batch_id: str) -> list[BatchResult]:
        done = Completion("7", "stop", Usage(3, 1), "m", 0.0)
        return [BatchResult(cid, done) for cid in self.requests.get(batch_id, [])]

    async def cancel(self, batch_id: str) -> None:
        raise AssertionError("never cancelled")


def items(n: int) -> list[BatchItem]:
    prompt = Prompt((Message("user", "2+5"),), "A", "en")
    return [BatchItem(f"s{i}", 0, prompt, GenerationParams()) for i in range(n)]


def store_with_run(tmp_path: Path) -> RunStore:
    store = RunStore.open(tmp_path)
    samples = [Sample(f"s{i}", "2+5", "7") for i in range(4)]
    info = RunInfo("r1", "arithmetic", ("m",), "h", 4, "g", "A", "en", "now")
    store.create_run(info, samples, "fp", {})
    return store


async def collect(api: ScriptedBatches, ledger: StoreBatchLedger) -> list[BatchAnswer]:
    got: list[BatchAnswer] = []

    async def on_answers(answers: Sequence[BatchAnswer]) -> None:
        got.extend(answers)

    await ask_in_batches(
        api, ledger, "m", items(4), on_answers, BatchPolicy(size=2), sleep=lambda _s: _none()
    )
    return got


async def _none() -> None:
    return None


async def test_an_unanswered_submit_found_at_the_provider_is_adopted(tmp_path: Path) -> None:
    with store_with_run(tmp_path) as store:
        ledger = StoreBatchLedger(store, "r1")
        ledger.intend("m", "tok", [("tok-0", "s0", 0), ("tok-1", "s1", 0)])
        api = ScriptedBatches(known={"tok": "b-old"})
        api.requests["b-old"] = ["tok-0", "tok-1"]
        got = await collect(api, ledger)
    assert len(api.submits) == 1  # only s2, s3: the adopted batch is not sent again
    assert not any(c.startswith("tok-") for c in api.submits[0])
    assert {a.sample_id for a in got} == {"s0", "s1", "s2", "s3"}
    assert {a.batch_id for a in got if a.sample_id in ("s0", "s1")} == {"b-old"}
    assert all(a.sample_id in ("s2", "s3") for a in got if a.batch_id != "b-old")


async def test_an_unanswered_submit_the_provider_lacks_is_submitted_once(tmp_path: Path) -> None:
    with store_with_run(tmp_path) as store:
        ledger = StoreBatchLedger(store, "r1")
        ledger.intend("m", "tok", [("tok-0", "s0", 0), ("tok-1", "s1", 0)])
        api = ScriptedBatches()
        got = await collect(api, ledger)
        assert ledger.open_batches("m") == []
    assert api.submits[0] == ["tok-0", "tok-1"]  # the same token and custom ids
    assert len(api.submits) == 2 and len(got) == 4


async def test_a_submitted_batch_is_polled_not_submitted_again(tmp_path: Path) -> None:
    with store_with_run(tmp_path) as store:
        ledger = StoreBatchLedger(store, "r1")
        ledger.intend("m", "tok", [(f"tok-{i}", f"s{i}", 0) for i in range(4)])
        ledger.submitted("m", "tok", "b-live")
        api = ScriptedBatches()
        api.requests["b-live"] = [f"tok-{i}" for i in range(4)]
        got = await collect(api, ledger)
    assert api.submits == [] and len(got) == 4 and {a.batch_id for a in got} == {"b-live"}
