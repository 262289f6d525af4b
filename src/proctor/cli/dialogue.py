"""`proctor dialogue FILE -m MODEL`: run a staged dialogue tree against a model.

    proctor dialogue esg-acme-en -m local            a shipped tree, by name
    proctor dialogue my-tree.json -m openai/gpt-4o   your own tree (JSON, or YAML with PyYAML)

Prints each turn's stage, score and contradictions, and writes the whole dialogue (turns, fact
graph, contradictions, scores) as JSON under RESULTS/dialogues/.
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from proctor.cli.console import SafeConsole
from proctor.errors import ConfigError

if TYPE_CHECKING:
    from proctor.dialogue.executor import DialogueResult
    from proctor.dialogue.tree import DialogueTree

DEFAULT_RESULTS = Path("proctor-results")
BUILTIN = ("esg-acme-en", "lithium-zh")


def read_tree(ref: str) -> DialogueTree:
    from proctor.dialogue.tree import load_tree, parse_tree

    path = Path(ref)
    if path.exists():
        return load_tree(path)
    if ref in BUILTIN:
        text = (
            resources.files("proctor.datasets")
            .joinpath("builtin", "dialogues", f"{ref}.json")
            .read_text(encoding="utf-8")
        )
        return parse_tree(text, f"builtin/dialogues/{ref}.json")
    raise ConfigError(f"no dialogue tree {ref!r}: give a file or one of {', '.join(BUILTIN)}")


def safe_name(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:60]


def dialogue_cmd(
    tree_ref: Annotated[str, typer.Argument(metavar="FILE", help="Tree file or shipped name.")],
    model: Annotated[str, typer.Option("--model", "-m", help="Model string.")] = "local",
    max_tokens: Annotated[int, typer.Option(help="max_tokens per turn.")] = 256,
    timeout: Annotated[float, typer.Option(help="Per-request timeout in seconds.")] = 120.0,
    results_dir: Annotated[
        Path, typer.Option("--results-dir", "-r", help="Folder for results.")
    ] = DEFAULT_RESULTS,
) -> None:
    """Run a staged dialogue: branch on the model's own answers, catch contradictions."""
    from proctor.calling.caller import ModelCaller
    from proctor.dialogue.executor import run_dialogue
    from proctor.providers.registry import make_provider
    from proctor.report.atomic import write_text_atomic
    from proctor.types import GenerationParams

    tree = read_tree(tree_ref)
    params = GenerationParams(max_tokens=max_tokens, timeout_s=timeout)

    async def go() -> DialogueResult:
        provider = make_provider(model)
        try:
            return await run_dialogue(tree, ModelCaller(provider), params)
        finally:
            await provider.aclose()

    result = asyncio.run(go())
    console = SafeConsole()
    print_result(console, result)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    out = results_dir / "dialogues" / f"{tree.id}-{safe_name(model)}-{stamp}.json"
    write_text_atomic(out, json.dumps(result.to_json(), ensure_ascii=False, indent=2) + "\n")
    console.print(f"written {out}")


def print_result(console: Console, result: DialogueResult) -> None:
    console.print(f"{result.tree} · {result.model} · {result.status} {result.reason}", markup=False)
    for t in result.turns:
        score = "—" if t.score is None else f"{t.score:.2f}"
        if t.finish_reason == "length":
            score += " (reply cut at max_tokens)"
        console.print(
            f"  turn {t.turn} [{t.stage}] score {score} → {t.next} ({t.why_next})", markup=False
        )
        for line in (*t.missed, *t.contradictions):
            console.print(f"    {line}", markup=False)
    mean = "—" if result.stage_mean is None else f"{result.stage_mean:.2f}"
    console.print(f"stage mean {mean} · consistency {result.consistency:.2f}")
    for c in result.contradictions:
        console.print(f"  contradiction: {c}", markup=False)
