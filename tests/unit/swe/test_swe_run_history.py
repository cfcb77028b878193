"""History stripping and the leak check, run for real on local git repos through `HostShell`.
Guards against agents reading the fix from `git log --all`, tags, remotes, stash, reflog or objects."""

from __future__ import annotations

import subprocess

import pytest

from clawmark.swe.errors import HistoryLeak
from clawmark.swe.history_strip import find_leaks, prepare_history, strip_history, verify_history
from clawmark.swe.shell import HostShell
from tests.support.swe_run_repos import GIT_ENV, commit_file, git, repo_with_future


def _git_rc(repo, *args) -> tuple[int, str]:
    done = subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def test_unstripped_repo_is_reported_as_leaking(tmp_path):
    repo, base, fix = repo_with_future(tmp_path)
    git(repo, "reset", "-q", "--hard", base)
    findings = find_leaks(HostShell(repo, GIT_ENV), base, [fix], workdir=str(repo))
    text = "\n".join(findings)
    assert f"git log --all shows commit {fix}" in text
    assert "refs/tags/v1.0" in text and "refs/remotes/origin/main" in text
    assert "stash entries present" in text and f"fix object {fix} present" in text
    assert ".git/info/refs present" in text and ".git/COMMIT_EDITMSG present" in text
    with pytest.raises(HistoryLeak):
        verify_history(HostShell(repo, GIT_ENV), base, [fix], workdir=str(repo))


def test_after_strip_no_command_finds_the_fix(tmp_path):
    repo, base, fix = repo_with_future(tmp_path)
    prepare_history(HostShell(repo, GIT_ENV), base, [fix], workdir=str(repo))
    assert git(repo, "rev-parse", "HEAD") == base
    assert set(git(repo, "log", "--all", "--format=%H").split()) == set(git(repo, "rev-list", base).split())
    assert fix not in git(repo, "reflog", "--all") and git(repo, "stash", "list") == ""
    assert git(repo, "tag") == "" and git(repo, "remote") == ""
    assert git(repo, "for-each-ref", "--format=%(refname)") == "refs/heads/main"
    assert sorted(p.name for p in (repo / ".git" / "refs" / "heads").iterdir()) in ([], ["main"])  # no dangling symref
    rc, out = _git_rc(repo, "show", fix)
    assert rc != 0 and "FIXED" not in out
    assert _git_rc(repo, "cat-file", "-e", fix)[0] != 0
    rc, out = _git_rc(repo, "grep", "FIXED", *git(repo, "rev-list", "--all").split())
    assert "FIXED" not in out
    for leftover in ("FETCH_HEAD", "ORIG_HEAD", "COMMIT_EDITMSG", "info/refs", "logs"):
        assert not (repo / ".git" / leftover).exists(), leftover


def test_no_dangling_object_of_the_fix_survives(tmp_path):
    repo, base, fix = repo_with_future(tmp_path)
    blob = git(repo, "rev-parse", f"{fix}:calc.py")
    strip_history(HostShell(repo, GIT_ENV), base, workdir=str(repo))
    assert _git_rc(repo, "cat-file", "-e", blob)[0] != 0
    objects = git(repo, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)").split()
    assert set(objects) <= set(git(repo, "rev-list", "--objects", base).split())


def test_strip_keeps_the_base_tree_and_untracked_ignored_files(tmp_path):
    repo, base, _ = repo_with_future(tmp_path)
    (repo / ".gitignore").write_text("build/\n")
    (repo / "build").mkdir()
    (repo / "build" / "ext.so").write_text("compiled")
    (repo / "scratch.txt").write_text("agent junk")
    strip_history(HostShell(repo, GIT_ENV), base, workdir=str(repo))
    assert (repo / "calc.py").read_text() == "def add(a, b):\n    return a - b\n"
    assert not (repo / "scratch.txt").exists()
    assert (repo / "build" / "ext.so").exists()  # clean -fd, not -fdx: built deps survive


def test_base_that_already_contains_the_fix_is_refused(tmp_path):
    """A bad row whose base descends from the fix: stripping cannot hide it, so the run refuses."""
    repo, _, fix = repo_with_future(tmp_path)
    git(repo, "checkout", "-q", "origin/main")
    late_base = commit_file(repo, "NEWS", "later\n", "after the fix")
    with pytest.raises(HistoryLeak) as info:
        prepare_history(HostShell(repo, GIT_ENV), late_base, [fix], workdir=str(repo))
    assert any(fix in finding for finding in info.value.findings)


def test_unreachable_object_planted_after_strip_is_detected(tmp_path):
    repo, base, _ = repo_with_future(tmp_path)
    strip_history(HostShell(repo, GIT_ENV), base, workdir=str(repo))
    planted = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=repo, env=GIT_ENV, input="return a + b",
                             capture_output=True, text=True, check=True).stdout.strip()
    findings = find_leaks(HostShell(repo, GIT_ENV), base, workdir=str(repo))
    assert findings == [f"object not reachable from the base: {planted}"]


def test_missing_base_is_a_leak_finding_not_a_crash(tmp_path):
    repo, _, _ = repo_with_future(tmp_path)
    findings = find_leaks(HostShell(repo, GIT_ENV), "0" * 40, workdir=str(repo))
    assert findings and "is not in the repository" in findings[0]


def test_a_graft_cannot_smuggle_the_fix_in_as_an_ancestor(tmp_path):
    repo, base, fix = repo_with_future(tmp_path)
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "grafts").write_text(f"{base} {fix}\n")  # base "has" the fix as parent
    prepare_history(HostShell(repo, GIT_ENV), base, [fix], workdir=str(repo))
    assert _git_rc(repo, "cat-file", "-e", fix)[0] != 0
