"""The evaluator's apply chain on real repos: first command that applies wins, the tree is reset
between tries (no half-applied hunks or .rej files survive), nothing applying is reported."""

from __future__ import annotations

from clawmark.swe.apply import apply_patch
from clawmark.swe.shell import HostShell
from tests.support.swe_run_repos import GIT_ENV, commit_file, git

LINES = "".join(f"line {i}\n" for i in range(1, 21))


def _repo(tmp_path):
    repo = tmp_path / "testbed"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit_file(repo, "f.txt", LINES, "base")
    return repo


def _diff_of(tmp_path, before: str, after: str) -> str:
    """A git-style patch of f.txt from `before` to `after`, made in a scratch repo."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    git(scratch, "init", "-q")
    commit_file(scratch, "f.txt", before, "before")
    (scratch / "f.txt").write_text(after)
    return git(scratch, "diff") + "\n"


def _apply(tmp_path, repo, patch: str):
    path = tmp_path / "model.patch"
    path.write_text(patch)
    return apply_patch(HostShell(repo, GIT_ENV), str(path), workdir=str(repo))


def test_clean_patch_applies_with_plain_git_apply(tmp_path):
    repo = _repo(tmp_path)
    result = _apply(tmp_path, repo, _diff_of(tmp_path, LINES, LINES.replace("line 10\n", "line ten\n")))
    assert result.method == "git apply"
    assert "line ten" in (repo / "f.txt").read_text()


def test_drifted_context_falls_through_to_patch_with_fuzz_and_leaves_no_rejects(tmp_path):
    repo = _repo(tmp_path)
    drifted = LINES.replace("line 9\n", "line nine\n")  # the model saw a slightly different file
    result = _apply(tmp_path, repo, _diff_of(tmp_path, drifted, drifted.replace("line 10\n", "line ten\n")))
    assert result.method == "patch --fuzz=5"
    assert "$ git apply (exit 1)" in result.log and "$ git apply --reject (exit 1)" in result.log
    text = (repo / "f.txt").read_text()
    assert "line ten" in text and "line 9\n" in text
    assert sorted(p.name for p in repo.iterdir()) == [".git", "f.txt"]


def test_patch_that_applies_nowhere_is_reported_and_tree_is_reset(tmp_path):
    repo = _repo(tmp_path)
    other = "".join(f"other {i}\n" for i in range(1, 21))
    result = _apply(tmp_path, repo, _diff_of(tmp_path, other, other.replace("other 5\n", "five\n")))
    assert result.method is None and not result.applied
    assert result.log.count("$ ") == 4
    assert (repo / "f.txt").read_text() == LINES
    assert git(repo, "status", "--porcelain") == ""


def test_garbage_is_not_applied(tmp_path):
    repo = _repo(tmp_path)
    assert _apply(tmp_path, repo, "this is not a diff\n").method is None
    assert git(repo, "status", "--porcelain") == ""
