"""Pure: a model's reply → the answer it gives (`Extraction`), and whether it broke the rules.

Imports only the standard library and `proctor.types`.
"""

from typing import TYPE_CHECKING

from proctor._util.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from proctor.extract.answer import (
        EXTRACTION_RULES,
        extract_answer,
        last_marker_is_cut,
        operand_values,
    )
    from proctor.extract.comparison import read_comparison
    from proctor.extract.normalize import NumberToken, clean_text, normalize_text, parse_number
    from proctor.extract.quantities import Quantity, find_quantities
    from proctor.extract.quantity_match import (
        QUANTITY_RULES,
        Comparison,
        Expected,
        QuantityMatch,
        compare_quantities,
        expected_quantity,
        grade_answer,
        match_quantity,
        read_answer,
        unit_asked,
    )
    from proctor.extract.reasoning import strip_reasoning
    from proctor.extract.violation import find_violation

__all__ = [
    "EXTRACTION_RULES",
    "QUANTITY_RULES",
    "Comparison",
    "Expected",
    "NumberToken",
    "Quantity",
    "QuantityMatch",
    "clean_text",
    "compare_quantities",
    "expected_quantity",
    "extract_answer",
    "find_quantities",
    "find_violation",
    "grade_answer",
    "last_marker_is_cut",
    "match_quantity",
    "normalize_text",
    "operand_values",
    "parse_number",
    "read_answer",
    "read_comparison",
    "strip_reasoning",
    "unit_asked",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "EXTRACTION_RULES": ".answer",
        "extract_answer": ".answer",
        "last_marker_is_cut": ".answer",
        "operand_values": ".answer",
        "read_comparison": ".comparison",
        "NumberToken": ".normalize",
        "clean_text": ".normalize",
        "normalize_text": ".normalize",
        "parse_number": ".normalize",
        "Quantity": ".quantities",
        "find_quantities": ".quantities",
        "QUANTITY_RULES": ".quantity_match",
        "Comparison": ".quantity_match",
        "Expected": ".quantity_match",
        "QuantityMatch": ".quantity_match",
        "compare_quantities": ".quantity_match",
        "expected_quantity": ".quantity_match",
        "grade_answer": ".quantity_match",
        "match_quantity": ".quantity_match",
        "read_answer": ".quantity_match",
        "unit_asked": ".quantity_match",
        "strip_reasoning": ".reasoning",
        "find_violation": ".violation",
    },
)
