"""Workflows under a hard budget: steps (model and tool calls), a budget meter checked before
each step, all-or-nothing required outputs (spec, pure), tools with record/replay (tools) and the
executor (which uses proctor.calling)."""
