"""The grading version the maths tasks (gsm8k, math500, aime) share: one grader
(`proctor.score.maths`) grades all three, so a change to it changes each one's version.

version  4 (1 → 2: mixed numbers, constants, lists, units and scale words are never
         read as plain numbers; float artefacts; a truncated last answer line is truncated;
         2 → 3: units compared by the one unit table (cents are not dollars, tons against
         tonnes and 兆 unscored, mL = cm³), number words and Chinese numerals read by the
         shared number reader;
         3 → 4, issue 33: answers withdrawn afterwards are unscored; code-only replies are never
         read through comments; exact values compared exactly; sequences, ratio chains and
         solution sets compared as structures; LaTeX as models mistype it; numbers read by the
         reply's own language (decimal commas, thousands dots, 万/만/mil/lakh, local digits) and
         its answer phrases, rejected alternatives and number words; zero-shot triggers as
         markers; a closing sentence's answer before its details; two forms of one answer)

A grade is stored with "<task>/<version>" (`runs.grade.grader_version`): the leaderboard groups
runs by it and `proctor score` re-grades into it, so a change that can flip any verdict of these
tasks bumps it here, once for all three.
"""

from __future__ import annotations

VERSION = "4"
