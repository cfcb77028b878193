"""The reference claw's tools on the closed-loop track: the same bash/read/write/edit as the patch
track, run as the executor user (never root, so the root-only services folder stays closed),
plus ``view_image``. File reads and writes go through that user's permissions too: a read is
checked with ``test -r`` as the user before the bytes are fetched, and a write is staged in a
world-readable file that the user copies into place itself."""

from __future__ import annotations

import base64
import posixpath
import shlex
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from clawmark.claws.tools import (
    _KIND_SCRIPT,
    TOOLS,
    ToolBox,
    ToolConfig,
    ToolFailure,
    _tool,
)
from clawmark.runtime.exec_target import ExecTarget

if TYPE_CHECKING:
    from clawmark.runtime.execution import ExecResult

IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
               ".webp": "image/webp"}  # what vision APIs take; an SVG is text (read_file)
STAGE_DIR = "/var/tmp/clawmark-stage"
MAX_IMAGE_BYTES = 4 * 2**20  # larger pictures are refused, not sent: providers cap image size

VIEW_IMAGE = _tool("view_image", "Look at an image file (png, jpg, gif, webp); the image is shown to you.",
                   path="Path of the image, absolute or relative to the workspace.")
CLOSED_LOOP_TOOLS: list[dict[str, Any]] = [*(t for t in TOOLS if t["function"]["name"] != "submit"),
                                           VIEW_IMAGE, *(t for t in TOOLS if t["function"]["name"] == "submit")]


class WorkstationToolBox(ToolBox):
    """ToolBox acting as ``user`` in the task container; images are queued for the conversation."""

    def __init__(self, sandbox: ExecTarget, workspace: str, config: ToolConfig, user: str | None,
                 describe: Callable[[dict[str, Any]], str] | None = None):
        super().__init__(sandbox, workspace, config)
        self.user = user
        self.describe = describe  # set when the executor model cannot see: a vision model describes
        self.images: list[dict[str, Any]] = []  # image parts for the next user message

    def _as_user(self, command: str, timeout_s: float = 30) -> ExecResult:
        return self.sandbox.exec(command, timeout_s=timeout_s, workdir=self.workspace, user=self.user)

    def _tool_bash(self, command: str) -> str:
        result = self._as_user(command, timeout_s=self.config.command_timeout_s)
        status = "timed out" if result.timed_out else f"exit code {result.exit_code}"
        return f"[{status}]\n{result.stdout}{result.stderr}"

    def _kind(self, path: str) -> str:
        """What the path is *for the user*: a file it cannot read is as good as missing."""
        probe = self._as_user(_KIND_SCRIPT.format(path=shlex.quote(path)))
        kind = probe.stdout.strip() or f"unknown (exit {probe.exit_code}: {probe.stderr[-200:]})"
        if kind.startswith("/") and self._as_user(f"test -r {shlex.quote(kind)}").exit_code != 0:
            return "unreadable"
        return kind

    def _resolve_file(self, path: str, shown: str) -> str:
        if self._kind(path) == "unreadable":
            raise ToolFailure(f"permission denied: {shown}")
        return super()._resolve_file(path, shown)

    def _tool_write_file(self, path: str, content: str) -> str:
        full = self._path(path)
        kind = self._kind(full)
        if kind in ("dir", "special"):
            raise ToolFailure(f"{path} is a {'directory' if kind == 'dir' else 'special file'}; cannot write it")
        self._put_as_user(kind if kind.startswith("/") else full, content.encode())  # through symlinks
        return f"wrote {len(content)} characters to {full}"

    def _write_back(self, target: str, data: bytes) -> None:
        self._put_as_user(target, data)  # as the executor: its permissions decide, not root's

    def _put_as_user(self, target: str, data: bytes) -> None:
        """Write ``data`` to ``target`` with the user's rights (an existing file keeps its mode)."""
        stage = f"{STAGE_DIR}/{uuid.uuid4().hex}"
        self.sandbox.write_file(stage, data, mode=0o644)
        try:
            folder = shlex.quote(posixpath.dirname(target))
            result = self._as_user(f"mkdir -p {folder} && cat {shlex.quote(stage)} > {shlex.quote(target)}")
        finally:
            self.sandbox.exec(["rm", "-f", stage], timeout_s=30, user="0")
        if result.exit_code != 0:
            raise ToolFailure(f"cannot write {target}: {(result.stderr or result.stdout).strip()[-300:]}")

    def _tool_view_image(self, path: str) -> str:
        full = self._path(path)
        media_type = IMAGE_TYPES.get(posixpath.splitext(full)[1].lower())
        if media_type is None:
            return f"error: {path} is not an image ({', '.join(sorted(IMAGE_TYPES))})"
        data = self.sandbox.read_file(self._resolve_file(full, path))
        if len(data) > MAX_IMAGE_BYTES:
            return f"error: {path} has {len(data)} bytes; images over {MAX_IMAGE_BYTES} are not sent"
        part = image_part(data, media_type)
        if self.describe is not None:
            return f"image {full}, as described by a vision model:\n{self.describe(part)}"
        self.images.append(part)
        return f"image {full} ({len(data)} bytes) is attached to the next message"

    def take_images(self) -> list[dict[str, Any]]:
        images, self.images = self.images, []
        return images


def image_part(data: bytes, media_type: str) -> dict[str, Any]:
    url = f"data:{media_type};base64,{base64.b64encode(data).decode()}"
    return {"type": "image_url", "image_url": {"url": url}}
