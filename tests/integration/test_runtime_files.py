"""copy_in / copy_out / write_file / read_file move bytes exactly, folders included."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from clawmark.runtime.images import ensure_image
from clawmark.runtime.sandbox import Sandbox, SandboxConfig

pytestmark = pytest.mark.docker

ALL_BYTES = bytes(range(256)) * 64 + os.urandom(4096)


def make_tree(root: Path) -> Path:
    tree = root / "tree"
    (tree / "nested" / "deeper").mkdir(parents=True)
    (tree / "all_bytes.bin").write_bytes(ALL_BYTES)
    (tree / "nested" / "empty").write_bytes(b"")
    (tree / "nested" / "deeper" / "crlf.txt").write_bytes("a\r\nb\n\xe9\u4e2d".encode())
    script = tree / "nested" / "run.sh"
    script.write_bytes(b"#!/bin/sh\necho ran\n")
    script.chmod(0o755)
    return tree


def files_of(root: Path) -> dict[str, tuple[bytes, bool]]:
    return {p.relative_to(root).as_posix(): (p.read_bytes(), os.access(p, os.X_OK))
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def sb(docker_client):
    with Sandbox.provision(SandboxConfig(image=ensure_image("base"), labels={"clawmark.test": "runtime"})) as box:
        yield box


def test_folder_round_trips_bytes_and_exec_bits(sb, tmp_path):
    tree = make_tree(tmp_path)
    sb.copy_in(tree, "/work/in")
    ran = sb.exec("/work/in/tree/nested/run.sh", timeout_s=30)
    copied = sb.copy_out("/work/in/tree", tmp_path / "back")
    assert ran.stdout == "ran\n"
    assert copied == tmp_path / "back" / "tree"
    assert files_of(copied) == files_of(tree)


def test_single_file_round_trip(sb, tmp_path):
    (tmp_path / "blob.bin").write_bytes(ALL_BYTES)
    sb.copy_in(tmp_path / "blob.bin", "/data")
    sb.copy_out("/data/blob.bin", tmp_path / "out")
    assert (tmp_path / "out" / "blob.bin").read_bytes() == ALL_BYTES


def test_write_then_read_file_exactly(sb):
    sb.write_file("/made/here/x.bin", ALL_BYTES, mode=0o600)
    mode = sb.exec(["stat", "-c", "%a", "/made/here/x.bin"], timeout_s=30).stdout.strip()
    assert sb.read_file("/made/here/x.bin") == ALL_BYTES and mode == "600"


def test_missing_paths_raise_file_not_found(sb, tmp_path):
    with pytest.raises(FileNotFoundError):
        sb.read_file("/no/such/file")
    with pytest.raises(FileNotFoundError):
        sb.copy_out("/no/such/dir", tmp_path)
    with pytest.raises(FileNotFoundError):
        sb.copy_in(tmp_path / "absent", "/x")


def test_copy_out_beyond_the_limit_is_refused(docker_client, tmp_path):
    from clawmark.runtime.errors import ArchiveTooLarge

    config = SandboxConfig(image=ensure_image("base"), max_copy_bytes=64 * 1024, labels={"clawmark.test": "runtime"})
    with Sandbox.provision(config) as box:
        box.exec("head -c 200000 /dev/urandom > /big.bin", timeout_s=30)
        with pytest.raises(ArchiveTooLarge, match="/big.bin"):
            box.read_file("/big.bin")
        with pytest.raises(ArchiveTooLarge):
            box.copy_out("/big.bin", tmp_path)
    assert not (tmp_path / "big.bin").exists()
