"""`proctor run --estimate` and `proctor run --retry-errors RUN`, as a user runs them: a child
`python -m proctor` against a stub server on 127.0.0.1."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from proctor.calling.rate_limit import estimate_tokens
from proctor.store import RunStore
from proctor.tasks.registry import get_task, load_for_run, resolve_variant
from support.stub.config import StubConfig
from support.stub.server import run_stub

PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in PROXY_VARS:
        monkeypatch.delenv(var, raising=False)


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    for key in ("PROCTOR_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "PROCTOR_PRICES"):
        env.pop(key, None)
    env.update({"PYTHONUNBUFFERED": "1", "COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"})
    return env


def proctor(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "proctor", *args],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


# -- --estimate ----------------------------------------------------------------------------------

N, MAX_TOKENS = 7, 100


def expected_tokens(n: int, max_tokens: int) -> tuple[int, int, int]:
    """calls, prompt tokens (est.), completion tokens (max): from the same functions as the CLI."""
    task = get_task("arithmetic")
    data = load_for_run(task, dataset=None, seed=None, n=n, limit=None)
    variant = resolve_variant(task, None)
    prompt_tokens = sum(
        estimate_tokens(m.content)
        for s in data.samples
        for m in task.build_prompt(s, variant, "en").messages
    )
    calls = len(data.samples)
    return calls, prompt_tokens, calls * max_tokens


def test_estimate_calls_nothing_and_writes_nothing(tmp_path: Path) -> None:
    results = tmp_path / "results"
    with run_stub(StubConfig()) as stub:
        out = proctor(
            "run", "arithmetic", "--n", str(N), "--max-tokens", str(MAX_TOKENS),
            "-m", stub.model, "-m", "fake/const:42", "-r", str(results), "--estimate",
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        assert stub.stats().requests == 0
    assert not results.exists()
    calls, prompt_tokens, completion_tokens = expected_tokens(N, MAX_TOKENS)
    text = out.stdout
    assert "no price" in text  # the openai-compat stub has no built-in price
    assert "$0.0000" in text  # fake/* is free
    assert f"{prompt_tokens:,}" in text and f"{completion_tokens:,}" in text
    assert f"{calls * 2:,} calls in all" in text
    assert "unknown" in text and "Nothing was called." in text


def test_estimate_with_prices_shows_the_dollar_figure(tmp_path: Path) -> None:
    results = tmp_path / "results"
    price_in, price_out = 1234.5, 6789.0
    prices = tmp_path / "prices.toml"
    with run_stub(StubConfig()) as stub:
        prices.write_text(
            f'[models."{stub.model}"]\ninput_per_mtok = {price_in}\n'
            f"output_per_mtok = {price_out}\n",
            encoding="utf-8",
        )
        out = proctor(
            "run", "arithmetic", "--n", str(N), "--max-tokens", str(MAX_TOKENS),
            "-m", stub.model, "-r", str(results), "--estimate", "--prices", str(prices),
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        assert stub.stats().requests == 0
    assert not results.exists()
    calls, prompt_tokens, _ = expected_tokens(N, MAX_TOKENS)
    # calls × (prompt est. per call × in + max_tokens × out) / 1e6, summed over the samples
    cost = (prompt_tokens * price_in + calls * MAX_TOKENS * price_out) / 1e6
    assert cost > 1.0
    assert f"${cost:,.4f}" in out.stdout, out.stdout
    assert f"at most ${cost:,.4f}" in out.stdout
    assert "no price" not in out.stdout


def test_estimate_with_a_bad_price_file_fails_naming_it(tmp_path: Path) -> None:
    prices = tmp_path / "bad-prices.toml"
    prices.write_text('[models."x"]\ninput_per_mtok = -3\noutput_per_mtok = 1\n')
    out = proctor(
        "run", "arithmetic", "--n", "3", "-m", "fake/const:1", "-r", str(tmp_path / "r"),
        "--estimate", "--prices", str(prices),
    )  # fmt: skip
    assert out.returncode == 2
    assert "bad-prices.toml" in out.stderr and "input_per_mtok" in out.stderr
    assert not (tmp_path / "r").exists()


# -- --retry-errors ------------------------------------------------------------------------------


def only_run(results: Path) -> str:
    with RunStore.open(results) as store:
        runs = store.list_runs()
    assert len(runs) == 1
    return runs[0].run_id


def stored(results: Path, run_id: str) -> list[tuple[str, int, str]]:
    with RunStore.open(results) as store:
        return sorted((r.sample_id, r.epoch, r.status) for r in store.records(run_id))


@pytest.mark.slow
def test_retry_errors_reasks_only_the_failed(tmp_path: Path) -> None:
    n = 12
    results = tmp_path / "results"
    with run_stub(StubConfig(fault_rate=1.0, seed=3)) as broken:
        port, model = broken.port, broken.model
        first = proctor(
            "run", "arithmetic", "--n", str(n), "-m", model, "-r", str(results),
            "--max-attempts", "1", "--max-failures", "0", "--concurrency", "4", "--timeout", "5",
        )  # fmt: skip
        assert first.returncode == 4, first.stderr  # every call asked, all failed
        assert f"--retry-errors {only_run(results)}" in first.stderr
        assert broken.stats().requests == n
    run_id = only_run(results)
    before = stored(results, run_id)
    assert len(before) == n
    assert {status for _, _, status in before} == {"call_failed"}

    with run_stub(StubConfig(), port=port) as healthy:
        assert healthy.model == model
        second = proctor(
            "run", "--retry-errors", run_id, "-r", str(results), "--timeout", "5",
        )  # fmt: skip
        assert second.returncode == 0, second.stderr
        assert healthy.stats().requests == n  # exactly the failed ones
    assert f"asked {n} failed or missing calls" in second.stdout
    after = stored(results, run_id)
    assert len(after) == n  # one record per sample, replaced, not added
    assert [(s, e) for s, e, _ in after] == [(s, e) for s, e, _ in before]
    assert {status for _, _, status in after} == {"ok"}


@pytest.mark.slow
def test_retry_errors_on_a_mixed_run_asks_only_the_failed(tmp_path: Path) -> None:
    n = 16
    results = tmp_path / "results"
    with run_stub(StubConfig(fault_rate=0.4, seed=5, faults=("500", "503"))) as flaky:
        port, model = flaky.port, flaky.model
        first = proctor(
            "run", "arithmetic", "--n", str(n), "-m", model, "-r", str(results),
            "--max-attempts", "1", "--max-failures", "0", "--concurrency", "4",
        )  # fmt: skip
        assert first.returncode == 4, first.stderr  # some calls failed
    run_id = only_run(results)
    before = stored(results, run_id)
    failed = [r for r in before if r[2] == "call_failed"]
    assert 0 < len(failed) < n, "seed 5 at 40 % should fail some, not all"
    with run_stub(StubConfig(), port=port) as healthy:
        second = proctor("run", "--retry-errors", run_id, "-r", str(results))
        assert second.returncode == 0, second.stderr
        assert healthy.stats().requests == len(failed)
    after = stored(results, run_id)
    assert len(after) == n
    assert {status for _, _, status in after} == {"ok"}
    assert re.search(rf"asked {len(failed)} failed or missing calls", second.stdout)


def test_a_run_cut_by_its_deadline_exits_3_and_resumes_to_0(tmp_path: Path) -> None:
    results = tmp_path / "results"
    with run_stub(StubConfig(latency_s=0.3)) as slow:
        first = proctor(
            "run", "arithmetic", "--n", "12", "-m", slow.model, "-r", str(results),
            "--concurrency", "1", "--deadline", "1",
        )  # fmt: skip
        assert first.returncode == 3, first.stderr
        assert "is incomplete" in first.stderr and "deadline" in first.stderr
        again = proctor("run", "arithmetic", "--n", "12", "-m", slow.model, "-r", str(results),
                        "--concurrency", "4")  # fmt: skip
        assert again.returncode == 0, again.stderr
    run_id = only_run(results)
    assert len(stored(results, run_id)) == 12
