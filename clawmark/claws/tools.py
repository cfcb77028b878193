"""The reference claw's tools, in OpenAI tool-calling format, executed in the attempt's sandbox.

Tool failures (a missing file, a directory or binary file passed as a text file, a broken symlink,
a file over the copy limit, an ambiguous edit, a non-zero exit, a command the OOM killer ended)
are observations for the model, never exceptions: only the sandbox itself failing (container
gone, engine down) is an infrastructure error. A symlink is read and edited through its target,
so an edit never turns the link into a file in the patch."""

from __future__ import annotations

import json
import posixpath
import shlex
import tarfile
from typing import Any

from pydantic import BaseModel, Field

from clawmark.runtime.errors import ArchiveTooLarge, OutOfMemory
from clawmark.runtime.exec_target import ExecTarget

# What a path is, in one exec: "dir", "missing", "broken-link", "special" or the resolved file path.
_KIND_SCRIPT = ('p={path}; if [ -d "$p" ]; then echo dir; elif [ -f "$p" ]; then readlink -f -- "$p"; '
                'elif [ -L "$p" ]; then echo broken-link; elif [ -e "$p" ]; then echo special; '
                'else echo missing; fi')
BINARY_PROBE_BYTES = 8192


def _tool(name: str, description: str, **params: str) -> dict[str, Any]:
    properties = {key: {"type": "string", "description": text} for key, text in params.items()}
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": list(params)},
        },
    }


TOOLS: list[dict[str, Any]] = [
    _tool("bash", "Run a bash command in the repository; returns exit code and output.",
          command="The command line."),
    _tool("read_file", "Read a text file.", path="Path, absolute or relative to the repository."),
    _tool("write_file", "Create or overwrite a text file.", path="Path.", content="Full new content."),
    _tool("edit", "Replace exactly one occurrence of old_str by new_str in a file.",
          path="Path.", old_str="Text to replace; must occur exactly once.", new_str="Replacement."),
    _tool("submit", "Declare the task done; stops the session."),
]


class ToolConfig(BaseModel):
    command_timeout_s: float = Field(120.0, description="Per bash call limit inside the sandbox.")
    max_output_chars: int = Field(10_000, description="Observations are cut to head+tail beyond this.")


class SubmitCalled(Exception):
    """The model called the submit tool."""


class ToolFailure(Exception):
    """A tool could not do what the model asked; its message is the observation."""


# Failures of one file operation that say something about the path, not about the sandbox.
_PATH_ERRORS = (ToolFailure, OSError, ValueError, ArchiveTooLarge, tarfile.TarError)


class ToolBox:
    """Executes tool calls against a sandbox rooted at ``workspace``."""

    def __init__(self, sandbox: ExecTarget, workspace: str, config: ToolConfig):
        self.sandbox, self.workspace, self.config = sandbox, workspace, config

    def run(self, name: str, arguments: str | dict[str, Any]) -> str:
        try:
            args = arguments if isinstance(arguments, dict) else json.loads(arguments or "{}")
        except (json.JSONDecodeError, TypeError) as exc:
            return f"error: arguments are not valid JSON ({exc})"
        if not isinstance(args, dict):
            return "error: arguments must be a JSON object"
        handler = getattr(self, f"_tool_{name}", None)
        if handler is None:
            return f"error: unknown tool {name!r}; tools: bash, read_file, write_file, edit, submit"
        try:
            return self._cut(handler(**args))
        except TypeError as exc:
            return f"error: bad arguments for {name}: {exc}"
        except _PATH_ERRORS as exc:
            return f"error: {exc}"

    def _path(self, path: str) -> str:
        return posixpath.normpath(posixpath.join(self.workspace, path))

    def _cut(self, text: str) -> str:
        limit = self.config.max_output_chars
        if len(text) <= limit:
            return text
        half = limit // 2
        return f"{text[:half]}\n[... {len(text) - limit} characters elided ...]\n{text[-half:]}"

    def _tool_bash(self, command: str) -> str:
        try:
            result = self.sandbox.exec(command, timeout_s=self.config.command_timeout_s, workdir=self.workspace)
        except OutOfMemory as exc:  # the command's own allocation: what a shell shows, as in-container claws see
            partial = exc.result
            output = f"{partial.stdout}{partial.stderr}" if partial is not None else ""
            return f"[killed: out of memory ({exc})]\n{output}"
        status = "timed out" if result.timed_out else f"exit code {result.exit_code}"
        return f"[{status}]\n{result.stdout}{result.stderr}"

    def _kind(self, path: str) -> str:
        probe = self.sandbox.exec(_KIND_SCRIPT.format(path=shlex.quote(path)), timeout_s=30)
        return probe.stdout.strip() or f"unknown (exit {probe.exit_code}: {probe.stderr[-200:]})"

    def _resolve_file(self, path: str, shown: str) -> str:
        """The regular file `path` names (through symlinks), or a ToolFailure saying what it is."""
        kind = self._kind(path)
        if kind.startswith("/"):
            return kind
        reasons = {"dir": f"{shown} is a directory, not a file (list it with bash: ls {shown})",
                   "missing": f"no such file {shown}",
                   "broken-link": f"{shown} is a symlink whose target does not exist",
                   "special": f"{shown} is not a regular file (device, socket or pipe)"}
        raise ToolFailure(reasons.get(kind, f"cannot inspect {shown}: {kind}"))

    def _read_text(self, path: str, shown: str) -> tuple[str, str]:
        """(resolved path, text) of a text file; binary or oversized files are ToolFailures."""
        target = self._resolve_file(path, shown)
        try:
            data = self.sandbox.read_file(target)
        except ArchiveTooLarge as exc:
            raise ToolFailure(f"{shown} is too large to read whole ({exc}); use bash (head, sed -n)") from exc
        if b"\0" in data[:BINARY_PROBE_BYTES]:
            raise ToolFailure(f"{shown} is a binary file ({len(data)} bytes); inspect it with bash (e.g. xxd | head)")
        return target, data.decode("utf-8", errors="replace")

    def _tool_read_file(self, path: str) -> str:
        return self._read_text(self._path(path), path)[1]

    def _tool_write_file(self, path: str, content: str) -> str:
        full = self._path(path)
        kind = self._kind(full)
        if kind in ("dir", "special"):
            raise ToolFailure(f"{path} is a {'directory' if kind == 'dir' else 'special file'}; cannot write it")
        exists = kind.startswith("/")
        target = kind if exists else full  # an existing symlink is written through, never replaced
        made = self.sandbox.exec(f"mkdir -p {shlex.quote(posixpath.dirname(target))}", timeout_s=30)
        if made.exit_code != 0:
            raise ToolFailure(f"cannot create the folder of {path}: {made.stderr.strip()[-300:]}")
        self.sandbox.write_file(target, content.encode(), mode=self._mode(target) if exists else 0o644)
        return f"wrote {len(content)} characters to {full}"

    def _tool_edit(self, path: str, old_str: str, new_str: str) -> str:
        full = self._path(path)
        target, text = self._read_text(full, path)
        count = text.count(old_str) if old_str else 0
        if count != 1:
            return f"error: old_str occurs {count} times in {path}; it must occur exactly once"
        self._write_back(target, text.replace(old_str, new_str, 1).encode())
        return f"edited {full}"

    def _write_back(self, target: str, data: bytes) -> None:
        """Rewrite an existing file in place, keeping its mode."""
        self.sandbox.write_file(target, data, mode=self._mode(target))

    def _mode(self, path: str) -> int:
        """The file's permission bits, so an edit never shows up as a mode change in the patch."""
        probe = self.sandbox.exec(f"stat -c %a {shlex.quote(path)}", timeout_s=30)
        text = probe.stdout.strip()
        return int(text, 8) if probe.exit_code == 0 and text.isdigit() else 0o644

    def _tool_submit(self) -> str:
        raise SubmitCalled
