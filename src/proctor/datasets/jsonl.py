"""Writing a test set as JSONL, and its content hash: one object a line, keys in a fixed order,
UTF-8 without escapes, LF endings; written to a temporary file beside the target and moved into
place, so a failure never leaves half a file."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from proctor.types import Sample

__all__ = ["content_hash", "sample_dict", "write_jsonl"]


def sample_dict(sample: Sample) -> dict[str, Any]:
    """The record of a sample, keys in `datasets.schema.FIELDS` order; decimals left out when
    None and metadata when empty."""
    record: dict[str, Any] = {
        "id": sample.id,
        "input": sample.input,
        "target": sample.target,
        "category": sample.category,
        "difficulty": sample.difficulty,
        "answer_type": sample.answer_type,
    }
    if sample.decimals is not None:
        record["decimals"] = sample.decimals
    if sample.metadata:
        record["metadata"] = dict(sample.metadata)
    return record


def write_jsonl(samples: Iterable[Sample], path: str | Path) -> None:
    """Write `samples` to `path` atomically (temporary file in the same folder, then os.replace)."""
    target = Path(path)
    text = "".join(json.dumps(sample_dict(s), ensure_ascii=False) + "\n" for s in samples)
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def content_hash(samples: Iterable[Sample]) -> str:
    """ "sha256:" + the first 16 hex digits of SHA-256 over the samples, in order, as one compact
    JSON array with sorted keys (decimals left out when None, metadata when empty)."""
    # Hashed piece by piece: the same bytes as json.dumps of the whole list, without holding a
    # copy of the paper as one string (at 100,000 samples that string doubled peak memory).
    digest = hashlib.sha256(b"[")
    encode = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode
    for i, s in enumerate(samples):
        item = encode(sample_dict(s))  # one encoder, not json.dumps's new one per sample
        digest.update((item if i == 0 else "," + item).encode("utf-8"))
    digest.update(b"]")
    return "sha256:" + digest.hexdigest()[:16]
