"""Real throwaway git repositories for the swe-runner unit tests (no Docker, no mocks)."""

from __future__ import annotations

import subprocess
from pathlib import Path

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "HOME": "/nonexistent", "GIT_CONFIG_NOSYSTEM": "1",
           "PATH": "/usr/local/bin:/usr/bin:/bin"}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def commit_file(repo: Path, name: str, text: str, message: str) -> str:
    path = repo / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def repo_with_future(tmp: Path) -> tuple[Path, str, str]:
    """A repo whose base is followed by a fix commit reachable every way agents look:
    branch, lightweight + annotated tags, a remote-tracking ref, a stash, reflog, FETCH_HEAD."""
    origin = tmp / "origin"
    origin.mkdir()
    git(origin, "init", "-q", "-b", "main")
    commit_file(origin, "calc.py", "def add(a, b):\n    return a - b\n", "initial")
    base = commit_file(origin, "README", "calc\n", "docs")
    fix = commit_file(origin, "calc.py", "def add(a, b):\n    return a + b  # FIXED\n", "fix add")
    git(origin, "tag", "v1.0")
    git(origin, "tag", "-a", "v1.0-annotated", "-m", "release")
    repo = tmp / "testbed"
    git(tmp, "clone", "-q", str(origin), str(repo))
    git(repo, "checkout", "-q", "-b", "work", base)
    (repo / "calc.py").write_text("stash me: return a + b\n")
    git(repo, "stash", "-q")
    git(repo, "fetch", "-q", "origin")
    git(repo, "notes", "add", "-m", "fix is in " + fix, base)
    git(repo, "symbolic-ref", "refs/heads/alias", "refs/heads/work")  # deleting it must not delete work twice
    git(repo, "update-server-info")  # .git/info/refs lists every ref with its sha
    (repo / ".git" / "COMMIT_EDITMSG").write_text("fix add\n")
    return repo, base, fix
