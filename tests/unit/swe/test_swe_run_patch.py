"""Patch extraction and cleaning on real local repos: binaries unstaged, setup/lock files dropped
by file NAME (not substring), non-ASCII names and claw leftovers dropped, raw kept."""

from __future__ import annotations

import subprocess

from clawmark.swe.patch_extract import extract_patch
from clawmark.swe.patch_clean import clean_patch, split_sections
from clawmark.swe.shell import HostShell
from tests.support.swe_run_repos import GIT_ENV, commit_file, git


def _repo(tmp_path):
    repo = tmp_path / "testbed"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit_file(repo, "setup.py", "from setuptools import setup\nsetup()\n", "setup")
    base = commit_file(repo, "calc.py", "def add(a, b):\n    return a - b\n", "base")
    return repo, base


def _write(repo, name, data: bytes | str):
    path = repo / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())


def _extract(repo, base):
    return extract_patch(HostShell(repo, GIT_ENV), base, workdir=str(repo))


def _files(patch: str) -> set[str]:
    return {s.paths[-1] for s in split_sections(patch)}


def test_text_edits_kept_binaries_unstaged_setup_and_lock_files_dropped(tmp_path):
    repo, base = _repo(tmp_path)
    _write(repo, "calc.py", "def add(a, b):\n    return a + b\n")
    _write(repo, "pkg/__init__.py", "")
    _write(repo, "my_setup.py.txt", "notes about setup.py\n")
    _write(repo, "setup.py", "from setuptools import setup\nsetup(name='x')\n")
    _write(repo, "rust/Cargo.lock", "# lock\n")
    _write(repo, "requirements-dev.txt", "pytest\n")
    _write(repo, "logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01")
    _write(repo, "data.txt", b"a\x00b\x00c")
    patch = _extract(repo, base)
    assert _files(patch.clean) == {"calc.py", "pkg/__init__.py", "my_setup.py.txt"}
    assert patch.dropped_files == {"setup.py": "setup/lock file", "rust/Cargo.lock": "setup/lock file",
                                   "requirements-dev.txt": "setup/lock file"}
    assert set(patch.unstaged_binaries) == {"logo.png", "data.txt"}
    assert "logo.png" not in patch.raw and "data.txt" not in patch.raw
    assert {"setup.py", "rust/Cargo.lock"} <= _files(patch.raw)  # raw keeps what clean drops
    assert "+    return a + b" in patch.clean


def test_clean_patch_applies_to_the_base(tmp_path):
    repo, base = _repo(tmp_path)
    _write(repo, "calc.py", "def add(a, b):\n    return a + b\n")
    _write(repo, "new_module.py", "X = 1\n")
    patch = _extract(repo, base)
    git(repo, "reset", "-q", "--hard", base)
    git(repo, "clean", "-fdq")
    subprocess.run(["git", "apply", "--check", "-"], cwd=repo, input=patch.clean, text=True, check=True, env=GIT_ENV)


def test_non_ascii_names_and_claw_files_dropped(tmp_path):
    repo, base = _repo(tmp_path)
    _write(repo, "calc.py", "def add(a, b):\n    return a + b\n")
    _write(repo, "héllo.py", "print('hi')\n")
    _write(repo, "AGENTS.md", "# persona\n")
    _write(repo, "SOUL.md", "be kind\n")
    _write(repo, ".openclaw/openclaw.json", "{}\n")
    _write(repo, "memory/2026-11-30.md", "remember\n")
    _write(repo, "docs/AGENTS.md", "a real doc in a subfolder\n")
    patch = _extract(repo, base)
    assert _files(patch.clean) == {"calc.py", "docs/AGENTS.md"}
    reasons = patch.dropped_files
    assert reasons["AGENTS.md"] == reasons["SOUL.md"] == reasons[".openclaw/openclaw.json"] == "claw file"
    assert reasons["memory/2026-11-30.md"] == "claw file"
    assert [reason for path, reason in reasons.items() if path.startswith("h")] == ["non-ASCII path"]


def test_nested_git_repositories_do_not_break_extraction(tmp_path):
    repo, base = _repo(tmp_path)
    _write(repo, "calc.py", "def add(a, b):\n    return a + b\n")
    workspace = repo / "claw_ws"
    workspace.mkdir()
    git(workspace, "init", "-q")
    _write(workspace, "notes.md", "scratch\n")
    patch = _extract(repo, base)
    assert _files(patch.clean) == {"calc.py"}
    assert patch.dropped_files == {"claw_ws": "nested repository"}


def test_agent_commits_and_hostile_diff_config_do_not_change_the_patch(tmp_path):
    repo, base = _repo(tmp_path)
    commit_file(repo, "calc.py", "def add(a, b):\n    return a + b\n", "agent commit")
    _write(repo, "blob.bin", b"\x00\x01\x02\x03")
    git(repo, "add", "blob.bin")
    git(repo, "commit", "-q", "-m", "agent commits a binary")
    git(repo, "config", "diff.noprefix", "true")
    git(repo, "config", "color.diff", "always")
    patch = _extract(repo, base)
    assert _files(patch.clean) == {"calc.py"}
    assert "--- a/calc.py\n+++ b/calc.py" in patch.clean and "\x1b[" not in patch.raw
    assert patch.unstaged_binaries == ("blob.bin",)


def test_untouched_repo_gives_an_empty_patch(tmp_path):
    repo, base = _repo(tmp_path)
    patch = _extract(repo, base)
    assert patch.is_empty and patch.raw == "" and patch.dropped_files == {}


def test_cleaning_handles_renames_modes_and_binary_sections_by_name():
    raw = (
        "diff --git a/old.py b/setup.py\nsimilarity index 100%\nrename from old.py\nrename to setup.py\n"
        "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
        "diff --git a/img.png b/img.png\nnew file mode 100644\nindex 0000000..e69de29\n"
        "Binary files /dev/null and b/img.png differ\n"
        "diff --git a/src/setup.py.bak b/src/setup.py.bak\nindex 1..2 100644\n--- a/src/setup.py.bak\n"
        "+++ b/src/setup.py.bak\n@@ -1 +1 @@\n-a\n+b\n"
    )
    cleaned = clean_patch(raw)
    assert _files(cleaned.clean) == {"run.sh", "src/setup.py.bak"}
    assert cleaned.dropped_files == {"setup.py": "setup/lock file", "img.png": "binary"}


def test_tiny_text_files_are_not_mistaken_for_binaries(tmp_path):
    repo, base = _repo(tmp_path)
    _write(repo, "VERSION", "2")  # `file` says "binary" for a one-byte file
    _write(repo, "tiny.bin", b"\x00")
    patch = _extract(repo, base)
    assert _files(patch.clean) == {"VERSION"} and patch.unstaged_binaries == ("tiny.bin",)


def test_oversized_patch_is_a_typed_error(tmp_path):
    import pytest

    from clawmark.swe.errors import PatchTooLarge

    repo, base = _repo(tmp_path)
    _write(repo, "dump.log", "log line\n" * 20_000)
    with pytest.raises(PatchTooLarge) as info:
        extract_patch(HostShell(repo, GIT_ENV), base, workdir=str(repo), max_bytes=100_000)
    assert info.value.size > 100_000


def test_gitlinks_dropped_but_a_hash_containing_160000_is_not_a_gitlink():
    raw = (
        "diff --git a/vendor/lib b/vendor/lib\nnew file mode 160000\nindex 0000000..abc1234\n--- /dev/null\n"
        "+++ b/vendor/lib\n@@ -0,0 +1 @@\n+Subproject commit abc1234\n"
        "diff --git a/a.py b/a.py\nindex 1600001..2160000 100644\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x\n+y\n"
    )
    cleaned = clean_patch(raw)
    assert cleaned.dropped_files == {"vendor/lib": "nested repository"}
    assert _files(cleaned.clean) == {"a.py"}


def test_a_patch_comes_back_whole_inline_or_as_a_file_and_no_temp_file_stays(tmp_path):
    """The diff taken with the staging is the patch; with a binary to unstage it is taken again,
    and the first one's file goes too."""
    from clawmark.swe.patch_extract import INLINE_BYTES

    for lines in (10, INLINE_BYTES // 8):  # inline in the diff's exec; read back as a file
        for binary in (False, True):
            case = tmp_path / f"{lines}-{binary}"
            case.mkdir()
            repo, base = _repo(case)
            temp = case / "tmp"
            temp.mkdir()
            _write(repo, "notes.txt", "".join(f"line {i}\n" for i in range(lines)))
            if binary:
                _write(repo, "blob.bin", bytes(range(256)) * 4)
            patch = extract_patch(HostShell(repo, {**GIT_ENV, "TMPDIR": str(temp)}), base, workdir=str(repo))
            assert patch.raw.count("\n+line ") == lines and patch.raw.endswith(f"+line {lines - 1}\n")
            assert (len(patch.raw.encode()) > INLINE_BYTES) == (lines > 10)
            assert patch.unstaged_binaries == (("blob.bin",) if binary else ()) and "blob.bin" not in patch.raw
            assert list(temp.iterdir()) == []
