"""Pure: an extracted answer and its sample → a typed `Score`, with the rule that decided it.

Imports only the standard library, `proctor.types` and `proctor.extract`.
"""

from proctor.score.numeric import RULES, ExactAnswerMatch, explain_rule, grade

__all__ = ["RULES", "ExactAnswerMatch", "explain_rule", "grade"]
