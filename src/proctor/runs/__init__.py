"""The wiring of a run, always through the store: ask, grade, statistics, report."""
