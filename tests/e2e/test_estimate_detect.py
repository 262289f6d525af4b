"""`proctor run … --estimate --detect 2pp [--baseline RUN]` as a user runs it: the items a paired
comparison needs (ψ measured on a stored baseline run with two models, against a loopback stub),
then calls, tokens and dollars at the list and the batch price; nothing is called."""

from __future__ import annotations

import re
from pathlib import Path

from proctor.runs.grade import stored_items
from proctor.stats.paired import items_needed
from proctor.stats.scores import item_scores
from proctor.store import RunStore
from support.stub.config import StubConfig
from support.stub.server import run_stub

from .conftest import flat_cli as cli


def test_items_and_dollars_for_a_two_point_difference(tmp_path: Path) -> None:
    results = tmp_path / "results"
    prices = tmp_path / "prices.toml"
    with run_stub(StubConfig(correct_rate=0.7, seed=3)) as stub:
        prices.write_text(
            f'[models."{stub.model}"]\ninput_per_mtok = 2.0\noutput_per_mtok = 8.0\n',
            encoding="utf-8",
        )
        code, out = cli("run", "arithmetic", "--n", "40", "-m", stub.model, "-m",
                        "fake/const:42", "-r", results)  # fmt: skip
        with RunStore.open(results) as store:
            (run,) = store.list_runs()
            items = stored_items(store, run.run_id)
        requests = stub.stats().requests
        code, out = cli("run", "arithmetic", "--n", "40", "-m", stub.model, "-m", "fake/const:42",
                        "--max-tokens", "100", "--estimate", "--detect", "2pp", "--baseline",
                        run.run_id, "--prices", prices, "-r", results)  # fmt: skip
        assert code == 0, out
        assert stub.stats().requests == requests  # nothing asked
    a = item_scores([i for i in items if i.record.model == stub.model])
    b = item_scores([i for i in items if i.record.model == "fake/const:42"])
    psi = sum((a[s] - b[s]) ** 2 for s in a) / len(a)
    assert 0 < psi < 1
    needed = items_needed(0.02, psi)
    assert "To detect a 2-point difference with 80 % power (two-sided α = 0.05)" in out
    assert f"needs about {needed:,} items" in out
    assert f"disagree on {psi * 100:.1f} % of 40 items in run {run.run_id}" in out
    completion = needed * 100
    assert f"{completion:,}" in out
    assert f"Cost of {needed:,} items" in out
    # the stub's row: list price, then the batch price (half the list when none is given)
    dollars = [float(x.replace(",", "")) for x in re.findall(r"\$([\d,]+\.\d{4})", out)]
    assert any(x > 1 and any(abs(x / 2 - y) < 1e-4 for y in dollars) for x in dollars), dollars


def test_without_a_baseline_the_count_is_the_cautious_one(tmp_path: Path) -> None:
    code, out = cli("run", "arithmetic", "--n", "10", "-m", "fake/const:42", "--estimate",
                    "--detect", "2pp", "-r", tmp_path / "r")  # fmt: skip
    assert code == 0, out
    assert f"needs about {items_needed(0.02, 0.5):,} items" in out
    assert "no baseline" in out
