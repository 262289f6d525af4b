"""Tools for workflows, and their record/replay.

- live: the tool runs (`calculator`, `doc_search`, `http_get`, or any registered function).
- record: a call already in the recording is answered from it; any other runs live once and is
  appended to the recording (JSONL, one call a line).
- replay: every call is answered from the recording and nothing runs; a call with no recording
  raises `ReplayMissing`, naming the tool, its arguments and the key, so a replay is offline and
  reproducible or fails loudly.

A call's key is the SHA-256 of its normalised form: sorted-key compact JSON of the tool name and
its arguments, strings NFC-normalised with outer whitespace removed.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from proctor.errors import ConfigError, DatasetError, ProctorError
from proctor.tools.calculator import calculate

ToolMode = Literal["live", "record", "replay"]
ToolFn = Callable[[Mapping[str, Any]], Awaitable[str]]


class ReplayMissing(ProctorError):
    """A replayed workflow asked for a tool call that was never recorded."""


class ToolFailed(ProctorError):
    """A live tool could not answer."""


def _normal(value: Any) -> Any:
    if isinstance(value, str):
        return unicodedata.normalize("NFC", value).strip()
    if isinstance(value, Mapping):
        return {str(k): _normal(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_normal(v) for v in value]
    return value


def call_key(tool: str, args: Mapping[str, Any]) -> str:
    canonical = json.dumps(
        {"tool": _normal(tool), "args": _normal(args)},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Recorded:
    key: str
    tool: str
    args: Mapping[str, Any]
    answer: str


def read_recording(path: Path) -> dict[str, Recorded]:
    found: dict[str, Recorded] = {}
    if not path.exists():
        return found
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            rec = Recorded(row["key"], row["tool"], row["args"], row["answer"])
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise DatasetError(str(path), n, None, f"not a recorded tool call: {e}") from None
        if call_key(rec.tool, rec.args) != rec.key:
            raise DatasetError(str(path), n, "key", "does not match the call's normalised hash")
        found[rec.key] = rec
    return found


async def calculator(args: Mapping[str, Any]) -> str:
    """{"expression": "121.7 * 0.15"} → the exact value (the generator's own arithmetic: an
    integer, a terminating decimal or p/q, never a rounded float)."""
    answer = calculate(str(args.get("expression", "")))
    if answer.startswith("error:"):
        raise ToolFailed(f"calculator: {answer.removeprefix('error:').strip()}")
    return answer


def doc_search(documents: Mapping[str, str]) -> ToolFn:
    """{"query": "..."} → the documents holding every word of the query, as "[id] text" lines."""

    async def search(args: Mapping[str, Any]) -> str:
        words = str(args.get("query", "")).lower().split()
        hits = [
            f"[{doc_id}] {text}"
            for doc_id, text in documents.items()
            if words and all(w in text.lower() or w in doc_id.lower() for w in words)
        ]
        return "\n".join(hits) if hits else "no document matches"

    return search


async def http_get(args: Mapping[str, Any]) -> str:
    """{"url": "https://…"} → the body's first 4,000 characters (record it once, then replay)."""
    import httpx

    url = str(args.get("url", ""))
    try:
        async with httpx.AsyncClient(timeout=20.0, follow_redirects=True) as client:
            response = await client.get(url)
    except httpx.HTTPError as e:
        raise ToolFailed(f"http_get {url}: {type(e).__name__}: {e}") from None
    return f"HTTP {response.status_code}\n{response.text[:4000]}"


@dataclass
class ToolBox:
    """The tools a workflow may call, in one mode, with its recording."""

    mode: ToolMode
    tools: dict[str, ToolFn]
    recording: Path | None = None
    recorded: dict[str, Recorded] = field(default_factory=dict)
    log: list[Recorded] = field(default_factory=list)
    """Every call answered in this run, in order."""

    def __post_init__(self) -> None:
        if self.mode != "live":
            if self.recording is None:
                raise ConfigError(f"{self.mode} mode needs a recording file")
            self.recorded = read_recording(self.recording)

    async def call(self, tool: str, args: Mapping[str, Any]) -> str:
        key = call_key(tool, args)
        if self.mode != "live" and key in self.recorded:
            rec = self.recorded[key]
        elif self.mode == "replay":
            raise ReplayMissing(
                f"no recorded answer for tool {tool!r} with args "
                f"{json.dumps(_normal(args), ensure_ascii=False, sort_keys=True)} "
                f"(key {key[:16]}) in {self.recording}: run once with --record"
            )
        else:
            fn = self.tools.get(tool)
            if fn is None:
                raise ToolFailed(
                    f"unknown tool {tool!r}: known are {', '.join(sorted(self.tools))}"
                )
            rec = Recorded(key, tool, _normal(dict(args)), await fn(args))
            if self.mode == "record" and self.recording is not None:
                self.recording.parent.mkdir(parents=True, exist_ok=True)
                with self.recording.open("a", encoding="utf-8") as f:
                    row = {"key": key, "tool": tool, "args": rec.args, "answer": rec.answer}
                    f.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
                self.recorded[key] = rec
        self.log.append(rec)
        return rec.answer


def standard_tools(documents: Mapping[str, str]) -> dict[str, ToolFn]:
    return {"calculator": calculator, "doc_search": doc_search(documents), "http_get": http_get}
