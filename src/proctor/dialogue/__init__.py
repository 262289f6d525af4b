"""Staged dialogues: a tree file of a few self-contained turns, branch rules on values the model
gave, a fact graph checked for contradictions (pure: tree, facts, flow), and the executor that
drives a model through it (executor, which uses proctor.calling)."""
