"""Which version of a suite a run used: the hash of its files, and where git knows them, the
commit and whether the files differ from it.

Git is asked read-only (`rev-parse`, and `status` with `--no-optional-locks` so not even the
index is refreshed), with a short timeout; no git, or a suite outside a repository, is recorded
in words, never as an error.
"""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

GIT_TIMEOUT_S = 5.0
NOT_IN_GIT = "not in a git repository"


@dataclass(frozen=True)
class SuiteVersion:
    content_hash: str
    """"sha256:" + 16 hex digits over the suite file's bytes and its config's."""
    git_commit: str | None
    git_dirty: bool | None
    """True when the suite or its config differs from the commit (or is not committed)."""
    git_note: str
    """Why there is no commit ("not in a git repository", "git is not installed"), or what is
    dirty; empty when clean."""

    def as_config(self) -> dict[str, object]:
        return asdict(self)

    def describe(self) -> str:
        if self.git_commit is None:
            return f"{self.content_hash} ({self.git_note})"
        state = f", {self.git_note}" if self.git_dirty else ""
        return f"{self.content_hash} at git {self.git_commit[:12]}{state}"


def files_hash(paths: Sequence[Path]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        data = path.read_bytes()
        digest.update(f"{path.name}\0{len(data)}\0".encode())
        digest.update(data)
    return "sha256:" + digest.hexdigest()[:16]


def _git(args: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "--no-optional-locks", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=GIT_TIMEOUT_S,
        check=False,
    )


def suite_version(paths: Sequence[Path]) -> SuiteVersion:
    """The version of the suite made of `paths` (the suite file first, then its config)."""
    content = files_hash(paths)
    where = paths[0].resolve().parent
    try:
        head = _git(["rev-parse", "HEAD"], where)
        if head.returncode != 0:
            return SuiteVersion(content, None, None, NOT_IN_GIT)
        names = [str(p.resolve()) for p in paths]
        tracked = _git(["ls-files", "--full-name", "--", *names], where)
        status = _git(["status", "--porcelain", "--", *names], where)
    except FileNotFoundError:
        return SuiteVersion(content, None, None, "git is not installed")
    except subprocess.TimeoutExpired:
        return SuiteVersion(content, None, None, f"git did not answer within {GIT_TIMEOUT_S:g} s")
    commit = head.stdout.strip()
    if status.returncode != 0 or tracked.returncode != 0:
        return SuiteVersion(content, commit, None, "git status failed")
    if len([line for line in tracked.stdout.splitlines() if line.strip()]) < len(paths):
        return SuiteVersion(content, commit, True, "not committed")
    if any(line.strip() for line in status.stdout.splitlines()):
        return SuiteVersion(content, commit, True, "changed since the commit")
    return SuiteVersion(content, commit, False, "")
