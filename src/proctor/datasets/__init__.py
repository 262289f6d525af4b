"""Test sets: the seeded arithmetic generator (arithmetic.py), the JSONL/CSV loader
(loaders.py), the JSONL writer and content hash (jsonl.py), and the exact evaluator that defines
generated answers (exact_eval.py). Import the module you need; this package imports nothing."""
