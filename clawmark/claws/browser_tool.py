"""The reference claw's `browser` tool: the desktop's Chromium over CDP, as the executor user.

The tool runs the browser-control base skill's `cdp.mjs` (Node 22's built-in WebSocket) inside
the task container, so CDP stays on the container's loopback and the claw's traffic goes
through the container's proxy settings like any other client. When no Chromium answers, the
desktop is started once (`clawmark-desktop-start --browser`, desktop image only). A
screenshot is attached to the next message like `view_image` does.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from clawmark.claws.tools import ToolConfig
from clawmark.claws.workstation_tools import CLOSED_LOOP_TOOLS, WorkstationToolBox
from clawmark.runtime.exec_target import ExecTarget
from clawmark.settings import TASKS_CATALOG

if TYPE_CHECKING:
    from clawmark.runtime.execution import ExecResult

CDP_SCRIPT = TASKS_CATALOG / "base_skills" / "browser-control" / "scripts" / "cdp.mjs"
SCRIPT_IN_CONTAINER = "/var/tmp/clawmark-cdp.mjs"
SHOT_DIR = "/tmp/clawmark-browser"
NO_BROWSER = "no Chromium answers"
ACTIONS = ("open", "text", "click", "type", "eval", "screenshot")

BROWSER_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "browser",
        "description": "Drive the desktop's Chromium. action: open (target = URL; returns the title), "
                       "text (the page's visible text), click (target = CSS selector), type (target = "
                       "selector, text = what to type), eval (target = JavaScript expression), screenshot "
                       "(the page is shown to you).",
        "parameters": {"type": "object", "required": ["action"], "properties": {
            "action": {"type": "string", "enum": list(ACTIONS)},
            "target": {"type": "string", "description": "URL, CSS selector or expression, per action."},
            "text": {"type": "string", "description": "Text for `type`."}}},
    },
}
BROWSER_TOOLS: list[dict[str, Any]] = [*CLOSED_LOOP_TOOLS[:-1], BROWSER_TOOL, CLOSED_LOOP_TOOLS[-1]]


def has_desktop(sandbox: ExecTarget) -> bool:
    """The container runs the desktop image (the cell key already names the image)."""
    return sandbox.exec("command -v clawmark-desktop-start >/dev/null", timeout_s=30).exit_code == 0


class BrowserToolBox(WorkstationToolBox):
    """The closed-loop tools plus `browser`."""

    def __init__(self, sandbox: ExecTarget, workspace: str, config: ToolConfig, user: str | None,
                 describe: Callable[[dict[str, Any]], str] | None = None) -> None:
        super().__init__(sandbox, workspace, config, user, describe)
        self._script_ready = False
        self._shots = 0

    def _tool_browser(self, action: str, target: str = "", text: str = "") -> str:
        if action not in ACTIONS:
            return f"error: unknown browser action {action!r}; actions: {', '.join(ACTIONS)}"
        self._install_script()
        if action == "screenshot":
            self._shots += 1
            target = f"{SHOT_DIR}/shot-{self._shots:03d}.png"
        result = self._cdp(action, target, text)
        if result.exit_code != 0 and NO_BROWSER in result.stderr:
            started = self._as_user("clawmark-desktop-start --browser", timeout_s=120)
            if started.exit_code != 0:
                return f"error: no browser, and the desktop could not start: {(started.stderr or started.stdout)[-300:]}"
            result = self._cdp(action, target, text)
        if result.exit_code != 0:
            return f"error: {(result.stderr or result.stdout).strip()[-1500:]}"
        if action == "screenshot":
            return self._tool_view_image(target)
        return result.stdout.rstrip("\n") or "(empty)"

    def _cdp(self, action: str, target: str, text: str) -> ExecResult:
        args = " ".join(shlex.quote(a) for a in (action, target, text) if a)
        return self._as_user(f"mkdir -p {SHOT_DIR} && node {SCRIPT_IN_CONTAINER} {args}", timeout_s=90)

    def _install_script(self) -> None:
        if not self._script_ready:
            self.sandbox.write_file(SCRIPT_IN_CONTAINER, CDP_SCRIPT.read_bytes(), mode=0o755)
            self._script_ready = True
