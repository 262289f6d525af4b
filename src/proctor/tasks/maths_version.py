"""The grading version the maths tasks (gsm8k, math500, aime) share: one grader
(`proctor.score.maths`) grades all three, so a change to it changes each one's version.

version  3 (1 → 2: mixed numbers, constants, lists, units and scale words are never
         read as plain numbers; float artefacts; a truncated last answer line is truncated;
         2 → 3: units compared by the one unit table (cents are not dollars, tons against
         tonnes and 兆 unscored, mL = cm³), number words and Chinese numerals read by the
         shared number reader)
"""

from __future__ import annotations

VERSION = "3"
