"""What a turn run's spec file shares, whichever kind it is (a dialogue tree, a workflow): the
fields every spec starts with, its JSON read, and a failed check turned into a DatasetError that
names the file, the line and the field."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from proctor.errors import DatasetError


class TurnSpec(BaseModel):
    """The head of every turn run's spec: its id, language, description and system prompt."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(min_length=1)
    lang: Literal["en", "zh"] = "en"
    description: str = ""
    system: str = ""


def read_json(text: str, source: str) -> Any:
    """The spec's JSON; a DatasetError naming its line when it is not JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise DatasetError(source, e.lineno, None, f"not JSON: {e.msg}") from None


def invalid_spec(
    error: ValidationError,
    text: str,
    source: str,
    named: str,
    line_of: Callable[[tuple[Any, ...]], int | None] = lambda loc: None,
) -> DatasetError:
    """The first of a spec's failed checks as a DatasetError: its field path and message, and its
    line: `line_of` the path where that can tell, else the line of the thing the message names
    (`named`: a pattern whose group 1 is the thing's id, as quoted in the text)."""
    err = error.errors()[0]
    loc = tuple(err["loc"])
    where = ".".join(str(p) for p in loc) or None
    msg = err["msg"].removeprefix("Value error, ")
    line = line_of(loc)
    thing = re.search(named, msg)
    if line is None and thing:
        i = text.find(f'"{thing.group(1)}"')
        line = text.count("\n", 0, i) + 1 if i >= 0 else None
    return DatasetError(source, line, where, msg)
