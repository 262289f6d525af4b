"""No credential reaches the store through a run's config."""

from __future__ import annotations

import pytest

from proctor.errors import StoreError
from proctor.store import RunStore
from support.store_factories import make_info, make_samples


@pytest.mark.parametrize(
    "config",
    [
        {"api_key": "sk-1"},
        {"OPENAI_APIKEY": "sk-1"},
        {"Client-Secret": "x"},
        {"token": "hf_x"},
        {"providers": {"openai": {"Access_Token": "x"}}},
        {"models": [{"name": "m", "anthropic_api_key": "x"}]},
    ],
)
def test_a_config_with_a_credential_is_refused(store: RunStore, config: dict[str, object]) -> None:
    with pytest.raises(StoreError, match="credential"):
        store.create_run(make_info("r"), make_samples(1), fingerprint="fp", config=config)
    assert store.list_runs() == []


def test_token_counts_are_not_credentials(store: RunStore) -> None:
    config: dict[str, object] = {
        "max_tokens": 256,
        "MAX_TOKENS": 256,
        "limits": {"tokens_per_minute": 10_000, "token_budget": None},
    }
    store.create_run(make_info("r"), make_samples(1), fingerprint="fp", config=config)
    assert store.run_config("r") == config
