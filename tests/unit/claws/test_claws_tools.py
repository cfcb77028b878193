"""The reference claw's tools: failures are observations for the model, never exceptions, and
edits never leak into the patch as mode changes."""

from __future__ import annotations

import json

import pytest

from clawmark.claws.tools import TOOLS, SubmitCalled, ToolBox, ToolConfig
from tests.support.claws_host import HostExecutor


@pytest.fixture
def box(tmp_path):
    (tmp_path / "run.sh").write_text("echo a\necho a\n")
    (tmp_path / "run.sh").chmod(0o755)
    return ToolBox(HostExecutor(tmp_path), str(tmp_path), ToolConfig(max_output_chars=200))


def _call(box, name, **args):
    return box.run(name, json.dumps(args))


def test_tool_schemas_are_openai_functions():
    assert [t["function"]["name"] for t in TOOLS] == ["bash", "read_file", "write_file", "edit", "submit"]
    assert TOOLS[3]["function"]["parameters"]["required"] == ["path", "old_str", "new_str"]


def test_bash_reports_exit_code_and_output(box):
    assert _call(box, "bash", command="echo hi; exit 3") == "[exit code 3]\nhi\n"


def test_long_output_keeps_head_and_tail(box):
    out = _call(box, "bash", command="seq 1 2000")
    assert out.startswith("[exit code 0]\n1\n") and out.endswith("2000\n") and "characters elided" in out


def test_edit_must_match_exactly_once_and_keeps_the_mode(box, tmp_path):
    assert "occurs 2 times" in _call(box, "edit", path="run.sh", old_str="echo a", new_str="echo b")
    assert _call(box, "edit", path="run.sh", old_str="echo a\necho a", new_str="echo b").startswith("edited ")
    assert (tmp_path / "run.sh").read_text() == "echo b\n"
    assert (tmp_path / "run.sh").stat().st_mode & 0o777 == 0o755


def test_missing_files_bad_arguments_and_unknown_tools_are_observations(box):
    assert _call(box, "read_file", path="nope.txt") == "error: no such file nope.txt"
    assert _call(box, "edit", path="nope.txt", old_str="a", new_str="b") == "error: no such file nope.txt"
    assert box.run("bash", "{not json").startswith("error: arguments are not valid JSON")
    assert box.run("bash", "[1, 2]") == "error: arguments must be a JSON object"
    assert box.run("bash", {"command": "echo ok"}) == "[exit code 0]\nok\n"  # some providers send objects
    assert _call(box, "bash", cmd="ls").startswith("error: bad arguments for bash")
    assert _call(box, "browse", url="x").startswith("error: unknown tool 'browse'")


def test_write_file_creates_folders_and_submit_raises(box, tmp_path):
    assert _call(box, "write_file", path="pkg/new.py", content="x = 1\n").startswith("wrote 6 characters")
    assert (tmp_path / "pkg" / "new.py").read_text() == "x = 1\n"
    with pytest.raises(SubmitCalled):
        _call(box, "submit")


@pytest.fixture
def odd_tree(tmp_path):
    """A symlink to a file, one to a folder, a dangling one, a folder and a binary file."""
    (tmp_path / "real.txt").write_text("key = value\n")
    (tmp_path / "link.txt").symlink_to("real.txt")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "link-dir").symlink_to("pkg")
    (tmp_path / "dangling").symlink_to("gone.txt")
    (tmp_path / "blob.bin").write_bytes(b"\x7fELF\x00\x01\x02" * 50)
    return ToolBox(HostExecutor(tmp_path), str(tmp_path), ToolConfig())


def test_a_symlink_is_read_and_edited_through_its_target(odd_tree, tmp_path):
    assert _call(odd_tree, "read_file", path="link.txt") == "key = value\n"
    assert _call(odd_tree, "edit", path="link.txt", old_str="value", new_str="other").startswith("edited ")
    assert (tmp_path / "link.txt").is_symlink() and (tmp_path / "real.txt").read_text() == "key = other\n"
    assert _call(odd_tree, "write_file", path="link.txt", content="new\n").startswith("wrote 4 characters")
    assert (tmp_path / "link.txt").is_symlink() and (tmp_path / "real.txt").read_text() == "new\n"


def test_directories_binaries_and_dangling_links_are_observations(odd_tree, tmp_path):
    assert _call(odd_tree, "read_file", path="pkg") == "error: pkg is a directory, not a file (list it with bash: ls pkg)"
    assert _call(odd_tree, "read_file", path="link-dir").startswith("error: link-dir is a directory")
    assert _call(odd_tree, "write_file", path="pkg", content="x").startswith("error: pkg is a directory")
    assert _call(odd_tree, "read_file", path="blob.bin") == ("error: blob.bin is a binary file (350 bytes); "
                                                              "inspect it with bash (e.g. xxd | head)")
    assert _call(odd_tree, "edit", path="blob.bin", old_str="E", new_str="e").startswith("error: blob.bin is a binary")
    assert _call(odd_tree, "read_file", path="dangling") == "error: dangling is a symlink whose target does not exist"
    assert _call(odd_tree, "write_file", path="real.txt/x.py", content="x").startswith("error: cannot create the folder")
    assert (tmp_path / "blob.bin").read_bytes().startswith(b"\x7fELF\x00")  # nothing was changed
