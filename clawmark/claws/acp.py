"""A client of the Agent Client Protocol (ACP v1: JSON-RPC 2.0, one JSON object per line, over a
child process's stdio), as ``zeroclaw acp`` speaks it.

This file is also a script, standard library only: the ZeroClaw adapter copies it into the
instance container and runs it with the container's ``python3`` next to the agent, so the
conversation never crosses the Docker API. One run is one turn:

    python3 acp.py --session-file S.json --cwd /testbed --prompt-file M.txt --timeout 600 \
        --out R.json -- zeroclaw acp

The messages are ACP v1's shapes as a real client sends them (ZeroClaw 0.8.4's own ACP client
too): ``initialize`` (``protocolVersion`` 1, ``clientCapabilities`` with no file system and no
terminal; an agent answering another version is refused); then ``session/new`` (``cwd``,
``mcpServers: []``, ZeroClaw's ``agentAlias``) the first time, ``session/resume`` (``sessionId``,
``cwd``, ``mcpServers: []``) of the id kept in the session file afterwards (ZeroClaw persists
sessions, so a fresh process continues the conversation); then ``session/prompt`` whose
``prompt`` is a list of content blocks (one ``{"type": "text", "text": ...}``), never a string.
``session/update`` notifications are collected (text chunks, tool calls); a
``session/request_permission`` request is answered with its allow-once option (the container is
the sandbox) and counted. Past the deadline the turn is
cancelled (``session/cancel``) and the child killed. The result JSON is written to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # never imported at run time: the container runs this file alone
    from clawmark.jsontypes import JsonValue

PROTOCOL_VERSION = 1
# We run the agent's tools in its own sandbox: the client offers neither files nor a terminal.
CLIENT_CAPABILITIES = {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}


class AcpError(Exception):
    def __init__(self, code: int, message: str):
        super().__init__(f"ACP error {code}: {message}")
        self.code, self.message = code, message


class AcpClient:
    """JSON-RPC over a child's stdin/stdout; notifications and server requests are handled
    while a request of ours waits for its response."""

    def __init__(self, argv: list[str], cwd: str | None = None):
        self.child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      cwd=cwd, text=True, bufsize=1)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: list[str] = []
        self.next_id = 1
        self.updates: list[dict[str, Any]] = []
        self.permission_requests = 0
        threading.Thread(target=self._pump, args=(self.child.stdout, self.lines.put), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.child.stderr, self._keep_stderr), daemon=True).start()

    @staticmethod
    def _pump(stream: Iterable[str], sink: Callable[[str | None], None]) -> None:
        for line in stream:
            sink(line)
        sink(None)

    def _keep_stderr(self, line: str | None) -> None:
        if line is not None:
            self.stderr.append(line)

    def send(self, message: dict[str, Any]) -> None:
        self.child.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        self.child.stdin.flush()

    def request(self, method: str, params: dict[str, Any], deadline: float) -> JsonValue:
        request_id = self.next_id
        self.next_id += 1
        self.send({"id": request_id, "method": method, "params": params})
        while True:
            message = self._receive(deadline)
            if message.get("id") == request_id and "method" not in message:
                if "error" in message:
                    error = message["error"] or {}
                    raise AcpError(int(error.get("code", 0)), str(error.get("message", "")))
                return message.get("result")
            self._handle(message)

    def _receive(self, deadline: float) -> dict[str, Any]:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no ACP response before the deadline")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise AcpError(-32099, f"the agent exited (code {self.child.poll()}): {''.join(self.stderr)[-800:]}")
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                continue  # not protocol traffic (a stray log line on stdout)
            if isinstance(message, dict):
                return message

    def _handle(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method == "session/update":
            self.updates.append((message.get("params") or {}).get("update") or {})
        elif method == "session/request_permission" and "id" in message:
            self.permission_requests += 1
            self.send({"id": message["id"], "result": {"outcome": _allow(message.get("params") or {})}})
        elif "id" in message and method:
            self.send({"id": message["id"], "error": {"code": -32601, "message": f"client has no {method}"}})

    def close(self) -> None:
        try:
            self.child.stdin.close()
            self.child.wait(timeout=10)
        except Exception:  # noqa: BLE001 - a child that will not exit is killed
            self.child.kill()


def _allow(params: dict[str, Any]) -> dict[str, Any]:
    options = params.get("options") or []
    allow = next((o for o in options if o.get("kind") == "allow_once"), options[0] if options else None)
    return {"outcome": "selected", "optionId": allow["optionId"]} if allow else {"outcome": "cancelled"}


def run_turn(argv: list[str], *, session_file: Path, cwd: str, prompt: str, timeout_s: float,
             agent: str | None = None) -> dict[str, Any]:
    """One prompt turn; the returned dict is what the adapter reads (see the module docstring)."""
    deadline = time.monotonic() + timeout_s
    client = AcpClient(argv)
    result: dict[str, Any] = {"ok": False, "sessionId": None, "resumed": False}
    try:
        info = client.request("initialize", {"protocolVersion": PROTOCOL_VERSION,
                                             "clientCapabilities": CLIENT_CAPABILITIES}, deadline) or {}
        if info.get("protocolVersion") != PROTOCOL_VERSION:
            raise AcpError(-32097, f"the agent speaks ACP {info.get('protocolVersion')!r}, not {PROTOCOL_VERSION}")
        result["agentInfo"] = info.get("agentInfo")
        result["sessionId"], result["resumed"] = _open_session(client, session_file, cwd, agent, deadline)
        session_file.write_text(json.dumps({"sessionId": result["sessionId"]}))
        reply = client.request("session/prompt", {"sessionId": result["sessionId"], "prompt": text_prompt(prompt)},
                               deadline)
        result.update(ok=True, stopReason=(reply or {}).get("stopReason"), content=(reply or {}).get("content", ""))
    except AcpError as exc:
        result["error"] = {"code": exc.code, "message": exc.message}
    except TimeoutError as exc:
        _cancel(client, result.get("sessionId"))
        result.update(timeout=True, error={"code": -32098, "message": str(exc)})
    finally:
        client.close()
    result.update(updates=_summary(client.updates), permissionRequests=client.permission_requests,
                  stderrTail="".join(client.stderr)[-2000:])
    return result


def _open_session(client: AcpClient, session_file: Path, cwd: str, agent: str | None,
                  deadline: float) -> tuple[str, bool]:
    known = json.loads(session_file.read_text()).get("sessionId") if session_file.is_file() else None
    if known:
        client.request("session/resume", {"sessionId": known, "cwd": cwd, "mcpServers": []}, deadline)
        return known, True
    params = {"cwd": cwd, "mcpServers": [], **({"agentAlias": agent} if agent else {})}
    created = client.request("session/new", params, deadline) or {}
    return str(created["sessionId"]), False


def text_prompt(text: str) -> list[dict[str, str]]:
    """An ACP v1 prompt: content blocks, here one text block."""
    return [{"type": "text", "text": text}]


def _cancel(client: AcpClient, session_id: str | None) -> None:
    if session_id:
        try:
            client.send({"method": "session/cancel", "params": {"sessionId": session_id}})
        except OSError:
            pass
    client.child.kill()


def _summary(updates: list[dict[str, Any]]) -> dict[str, Any]:
    kinds: dict[str, int] = {}
    tools = []
    for update in updates:
        kind = str(update.get("sessionUpdate"))
        kinds[kind] = kinds.get(kind, 0) + 1
        if kind == "tool_call":
            tools.append(str(update.get("title") or update.get("name") or ""))
    return {"counts": kinds, "toolCalls": tools}


def main(args: list[str]) -> int:
    parser = argparse.ArgumentParser(description="One ACP prompt turn (clawmark).")
    for flag in ("--session-file", "--cwd", "--prompt-file", "--out"):
        parser.add_argument(flag, required=True)
    parser.add_argument("--timeout", type=float, required=True)
    parser.add_argument("--agent")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    ns = parser.parse_args(args)
    argv = ns.command[1:] if ns.command[:1] == ["--"] else ns.command
    result = run_turn(argv, session_file=Path(ns.session_file), cwd=ns.cwd, agent=ns.agent,
                      prompt=Path(ns.prompt_file).read_text(), timeout_s=ns.timeout)
    Path(ns.out).write_text(json.dumps(result, indent=1))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
