"""The judge tests' fixtures: a small suite and a way to run it against scripted candidates."""

from support.judge_suite import run_suite, suite_path

__all__ = ["run_suite", "suite_path"]
