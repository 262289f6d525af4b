"""Custom suites: a team's own cases in a CSV or JSONL file kept in git, with an optional config
beside it; see `loader` for the columns and `config` for the settings."""
