"""The reference claw's tools, in OpenAI tool-calling format, executed in the attempt's sandbox.

Tool failures (missing file, ambiguous edit, non-zero exit) are observations for the model, never
exceptions: only the sandbox itself failing is an infrastructure error."""

from __future__ import annotations

import json
import posixpath
import shlex
from typing import Any

from pydantic import BaseModel, Field


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


class ToolBox:
    """Executes tool calls against a sandbox rooted at ``workspace``."""

    def __init__(self, sandbox: Any, workspace: str, config: ToolConfig):
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

    def _path(self, path: str) -> str:
        return posixpath.normpath(posixpath.join(self.workspace, path))

    def _cut(self, text: str) -> str:
        limit = self.config.max_output_chars
        if len(text) <= limit:
            return text
        half = limit // 2
        return f"{text[:half]}\n[... {len(text) - limit} characters elided ...]\n{text[-half:]}"

    def _tool_bash(self, command: str) -> str:
        result = self.sandbox.exec(command, timeout_s=self.config.command_timeout_s, workdir=self.workspace)
        status = "timed out" if result.timed_out else f"exit code {result.exit_code}"
        return f"[{status}]\n{result.stdout}{result.stderr}"

    def _read_text(self, path: str) -> str | None:
        probe = self.sandbox.exec(f"test -f {shlex.quote(path)}", timeout_s=30)
        if probe.exit_code != 0:
            return None
        return self.sandbox.read_file(path).decode("utf-8", errors="replace")

    def _tool_read_file(self, path: str) -> str:
        text = self._read_text(self._path(path))
        return f"error: no such file {path}" if text is None else text

    def _tool_write_file(self, path: str, content: str) -> str:
        full = self._path(path)
        self.sandbox.exec(f"mkdir -p {shlex.quote(posixpath.dirname(full))}", timeout_s=30)
        self.sandbox.write_file(full, content.encode())
        return f"wrote {len(content)} characters to {full}"

    def _tool_edit(self, path: str, old_str: str, new_str: str) -> str:
        full = self._path(path)
        text = self._read_text(full)
        if text is None:
            return f"error: no such file {path}"
        count = text.count(old_str) if old_str else 0
        if count != 1:
            return f"error: old_str occurs {count} times in {path}; it must occur exactly once"
        self.sandbox.write_file(full, text.replace(old_str, new_str, 1).encode(), mode=self._mode(full))
        return f"edited {full}"

    def _mode(self, path: str) -> int:
        """The file's permission bits, so an edit never shows up as a mode change in the patch."""
        probe = self.sandbox.exec(f"stat -c %a {shlex.quote(path)}", timeout_s=30)
        text = probe.stdout.strip()
        return int(text, 8) if probe.exit_code == 0 and text.isdigit() else 0o644

    def _tool_submit(self) -> str:
        raise SubmitCalled
