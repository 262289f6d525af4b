"""Pure: a model's reply → the answer it gives (`Extraction`), and whether it broke the rules.

Imports only the standard library and `proctor.types`.
"""

from proctor.extract.answer import (
    EXTRACTION_RULES,
    extract_answer,
    last_marker_is_cut,
    operand_values,
)
from proctor.extract.comparison import read_comparison
from proctor.extract.normalize import NumberToken, clean_text, normalize_text, parse_number
from proctor.extract.reasoning import strip_reasoning
from proctor.extract.violation import find_violation

__all__ = [
    "EXTRACTION_RULES",
    "NumberToken",
    "clean_text",
    "extract_answer",
    "find_violation",
    "last_marker_is_cut",
    "normalize_text",
    "operand_values",
    "parse_number",
    "read_comparison",
    "strip_reasoning",
]
