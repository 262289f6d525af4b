"""`proctor dialogue FILE -m MODEL`: run a staged dialogue tree against a model.

    proctor dialogue esg-acme-en -m local            a shipped tree, by name
    proctor dialogue my-tree.json -m openai/gpt-4o   your own tree (JSON, or YAML with PyYAML)

The run lives in the run store like any run (`proctor list`, `proctor score RUN`); each turn is
committed as it is answered, so the same command after a kill asks no answered turn again.
Prints each turn's stage, score and contradictions, stores its grade and writes the run's
files like any run's (results.json with the whole graded dialogue, summary.md, report.html),
and exits 0 when the dialogue ran to its end, 4 when a call failed (the same command asks it
again), 6 when the model's answers left the tree no way on.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from proctor._util.defaults import DEFAULT_RESULTS
from proctor.cli.options import MaxAttempts, OneModel, RequestTimeout, ResultsDir, TurnResume
from proctor.cli.turns import ask_turn_run
from proctor.errors import ConfigError

if TYPE_CHECKING:
    from proctor.dialogue.tree import DialogueTree
    from proctor.types import GenerationParams

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


def dialogue_cmd(
    tree_ref: Annotated[str, typer.Argument(metavar="FILE", help="Tree file or shipped name.")],
    model: OneModel = "local",
    max_tokens: Annotated[int, typer.Option(help="max_tokens per turn.")] = 256,
    timeout: RequestTimeout = 120.0,
    max_attempts: MaxAttempts = 4,
    resume: TurnResume = None,
    results_dir: ResultsDir = DEFAULT_RESULTS,
) -> None:
    """Run a staged dialogue: branch on the model's own answers, catch contradictions."""
    from proctor.types import GenerationParams

    if max_attempts < 1:
        raise typer.BadParameter("--max-attempts must be at least 1")
    params = GenerationParams(max_tokens=max_tokens, timeout_s=timeout)
    ask_dialogue(read_tree(tree_ref), model, params, max_attempts, resume, results_dir)


def ask_dialogue(
    tree: DialogueTree,
    model: str,
    params: GenerationParams,
    max_attempts: int,
    resume: str | None,
    results_dir: Path,
) -> None:
    """Ask (or resume) the dialogue, print it, and exit with its outcome's code."""
    from proctor.runs.turn_kinds import DIALOGUE
    from proctor.runs.turns import TURN_KINDS, dialogue_start

    start = dialogue_start(tree, params, results_dir, model=model, resume=resume)
    ask_turn_run(TURN_KINDS[DIALOGUE], results_dir, model, max_attempts, start)
