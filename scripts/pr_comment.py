#!/usr/bin/env python3
"""Keep one sticky comment on a pull request: the first call creates it, every later call
updates the same comment (found by a hidden marker line), so a PR shows the latest gate once,
not one comment per push. Used by action.yml; standard library only.

    GITHUB_TOKEN=… python scripts/pr_comment.py --repo OWNER/NAME --pr N --body-file FILE
        [--marker TEXT] [--api URL]

The API is GitHub's REST API (`$GITHUB_API_URL`, default https://api.github.com): the issue's
comments are listed page by page (100 a page), the first one holding the marker is edited
(PATCH /repos/{repo}/issues/comments/{id}), else one is created (POST
/repos/{repo}/issues/{pr}/comments). Exit 0 when the comment is in place, 1 when GitHub
refused (its status and message said), 2 on a usage error."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

MARKER = "<!-- proctor-gate -->"
MAX_BODY = 65_000
"""GitHub refuses comments over 65,536 characters: a longer summary is cut, and says so."""
PER_PAGE = 100
MAX_PAGES = 100


class GitHubError(Exception):
    pass


def request(api: str, token: str, method: str, path: str, body: object = None) -> Any:
    data = None if body is None else json.dumps(body).encode("utf-8")
    req = urllib.request.Request(api.rstrip("/") + path, data=data, method=method)
    req.add_header("Accept", "application/vnd.github+json")
    req.add_header("X-GitHub-Api-Version", "2022-11-28")
    req.add_header("User-Agent", "proctor-gate-comment")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=30) as reply:
            raw = reply.read()
    except urllib.error.HTTPError as e:
        detail = e.read()[:500].decode("utf-8", "replace")
        with contextlib.suppress(ValueError, AttributeError):
            detail = str(json.loads(detail).get("message", detail))
        raise GitHubError(f"{method} {path}: HTTP {e.code}: {detail}") from None
    except (urllib.error.URLError, OSError) as e:
        raise GitHubError(f"{method} {path}: {getattr(e, 'reason', e)}") from None
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        raise GitHubError(f"{method} {path}: the reply is not JSON") from None


def find_comment(api: str, token: str, repo: str, pr: int, marker: str) -> int | None:
    """The id of the first comment on the PR holding `marker`, or None."""
    for page in range(1, MAX_PAGES + 1):
        path = f"/repos/{repo}/issues/{pr}/comments?per_page={PER_PAGE}&page={page}"
        comments = request(api, token, "GET", path)
        if not isinstance(comments, list):
            raise GitHubError(f"GET {path}: expected a list of comments")
        for comment in comments:
            if isinstance(comment, dict) and marker in str(comment.get("body") or ""):
                found = comment.get("id")
                if isinstance(found, int) and not isinstance(found, bool):
                    return found
        if len(comments) < PER_PAGE:
            return None
    return None


def body_of(text: str, marker: str) -> str:
    body = f"{marker}\n{text.rstrip()}\n"
    if len(body) > MAX_BODY:
        body = body[:MAX_BODY] + "\n\n… (cut: the whole summary is on the job's page)\n"
    return body


def upsert(api: str, token: str, repo: str, pr: int, text: str, marker: str) -> tuple[str, int]:
    """("created" or "updated", the comment's id)."""
    body = body_of(text, marker)
    found = find_comment(api, token, repo, pr, marker)
    if found is not None:
        request(api, token, "PATCH", f"/repos/{repo}/issues/comments/{found}", {"body": body})
        return "updated", found
    made = request(api, token, "POST", f"/repos/{repo}/issues/{pr}/comments", {"body": body})
    new_id = made.get("id") if isinstance(made, dict) else None
    if not isinstance(new_id, int):
        raise GitHubError("POST comments: the reply has no comment id")
    return "created", new_id


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", required=True, help="OWNER/NAME")
    parser.add_argument("--pr", required=True, type=int, help="the pull request's number")
    parser.add_argument("--body-file", required=True, type=Path, help="Markdown to post")
    parser.add_argument("--marker", default=MARKER, help="the hidden line that finds it again")
    parser.add_argument("--api", default=os.environ.get("GITHUB_API_URL", "https://api.github.com"))
    args = parser.parse_args(argv)
    if args.repo.count("/") != 1 or args.pr < 1:
        print("pr_comment: --repo must be OWNER/NAME and --pr a number from 1", file=sys.stderr)
        return 2
    try:
        text = args.body_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        print(f"pr_comment: cannot read {args.body_file}: {e}", file=sys.stderr)
        return 2
    token = os.environ.get("GITHUB_TOKEN", "")
    try:
        what, comment = upsert(args.api, token, args.repo, args.pr, text, args.marker)
    except GitHubError as e:
        print(f"pr_comment: GitHub refused: {e}", file=sys.stderr)
        return 1
    print(f"pr_comment: {what} comment {comment} on {args.repo}#{args.pr}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
