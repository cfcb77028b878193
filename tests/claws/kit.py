"""The conformance kit's registry and its double of the model provider.

Every claw in ``KIT_CLAWS`` runs the same checks (``test_conformance.py``) against scripted
models through the real gateway. Adding a claw is one line here plus its cassette
``cassettes/kit-<name>.yaml``, which must (see the existing ones):

* on the first turn fix the bundled instance ``INI`` (the iniparse inline-comment bug), the
  first assistant message containing ``TURN0_MARK`` and a tool printing ``FIX_MARK``;
* answer the follow-up message (it contains ``FOLLOW_UP_MARK``) with a trigger pinned to the
  number of assistant messages turn 0 left (``turn: N``), so the scripted model itself only
  plays along when the claw sent its history, and end the turn the claw's way.

The cassettes ``kit-slow`` (one reply after 30 s) and ``kit-http-<code>`` (the provider answers
that HTTP status; no file needed) are shared by every claw.

The closed-loop half (``test_conformance_closed_loop.py``) writes its generic cassettes itself
(one reply per turn); EDICT's court plays ``tasks_catalog/cassettes/edict-cl-zh_201_invoice_sum``.

EDICT runs here as its three-role test double ``edict-3role`` (four OpenClaw runs a court turn);
the real court's one run on OpenClaw is tests/integration/test_claws_edict.py.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from clawmark.gateway.cassettes import content_text
from tests.support.paths import FIXTURES

CASSETTES = Path(__file__).with_name("cassettes")
TURN0_MARK = "KIT-TURN-0"
FIX_MARK = "kit-fix-applied"
FOLLOW_UP_MARK = "KIT-FOLLOW-UP"
FOLLOW_UP = f"{FOLLOW_UP_MARK}: thanks. Please also make sure tabs before a comment still work."
# What a claw must never leave in a patch or a results folder: persona, memory, sessions, state.
CLAW_FILE_NAMES = frozenset({"AGENTS.md", "SOUL.md", "USER.md", "TOOLS.md", "IDENTITY.md", "HEARTBEAT.md",
                             "BOOTSTRAP.md", "MEMORY.md", "history.jsonl", "cfg.json", "config.yaml"})
CLAW_DIR_NAMES = frozenset({".git", ".nanobot", ".hermes", ".openclaw", ".zeroclaw", "sessions", "memory",
                            "prompts", "claw-home"})


@dataclass(frozen=True)
class KitClaw:
    name: str
    exits_zero_on_model_failure: bool = False  # claws.md: Nanobot and Hermes -z do
    reports_usage: bool = True  # collect_usage gives its own figures (compared with the ledger)
    submit_command: str | None = None  # a claw that ends a turn with a bash command, not plain text
    settings: tuple[tuple[str, Any], ...] = ()  # claw settings, e.g. the ZeroClaw stand-in's
    label: str = ""  # the test id when it differs from the claw's name
    # OpenClaw ends every user turn with its own runtime-facts user message, so no trigger sees
    # the follow-up's text there: its cassettes answer the follow-up by reply count (`turn`) alone.
    context_after_user: bool = False
    # The closed-loop half's generic three-turn case (one reply per turn). EDICT's court needs a
    # reply per role and board state: it runs a bundled task on its own cassette instead.
    closed_loop: bool = True
    # A protocol profile (clawmark/claws/profiles): its pinned version's image, settings and limits.
    profile: str = "clawmark"
    cassette: str = ""  # the scripted model's cassette when it is not kit-<name>
    # Whether the claw's saved session keeps a turn's tool calls and outputs (a follow-up then
    # carries them); nanobot 0.1.5 keeps only the user message and the final reply.
    session_keeps_tool_turns: bool = True

    @property
    def config(self) -> dict[str, Any]:
        return dict(self.settings)

    def final(self, content: str) -> dict[str, Any]:
        """A cassette step that ends a turn with ``content``, the claw's way."""
        if self.submit_command is None:
            return {"content": content}
        return {"content": content, "tool_calls": [{"name": "bash", "arguments": {"command": self.submit_command}}]}

    @property
    def model(self) -> str:
        return f"scripted/{self.cassette or f'kit-{self.name}'}"

    def adapter(self):
        """The claw as an attempt makes it: its settings under its profile."""
        from clawmark.claws import Budgets
        from clawmark.claws.profiles import ProfileUse, profiled_claw

        return profiled_claw(self.name, self.config, Budgets(), ProfileUse(name=self.profile))[0]

    def __str__(self) -> str:
        return self.label or self.name


EDICT_TIMEOUT_S = 1800  # a court turn is four OpenClaw runs: past the suite's 900 s on a loaded machine


def claw_param(claw: "KitClaw", *values: object, id: str | None = None) -> Any:
    """pytest.param of a kit claw (and the case's other values); EDICT's court gets EDICT_TIMEOUT_S."""
    marks = [pytest.mark.timeout(EDICT_TIMEOUT_S)] if claw.name.startswith("edict") else []
    return pytest.param(claw, *values, id=id or str(claw), marks=marks)

# ZeroClaw cannot be built here: its adapter runs against our stand-in of `zeroclaw acp`.
ZEROCLAW_STANDIN = (("host_dir", str(FIXTURES / "zeroclaw")),
                    ("command", ("python3", "/opt/claws/zeroclaw/zeroclaw_standin.py", "acp")), ("standin", True))
KIT_CLAWS = [
    KitClaw("reference"),
    # Two tries of a failed model query, not mini's 10 (4-60 s apart): the provider-failure case
    # waited 289 s through them, and what it checks is the typed error, not mini's patience.
    KitClaw("mini-swe-agent", submit_command="echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
            settings=(("model_retry_attempts", 2),)),
    KitClaw("nanobot", exits_zero_on_model_failure=True),
    KitClaw("hermes"),
    KitClaw("genericagent", exits_zero_on_model_failure=True, reports_usage=False),
    KitClaw("openclaw", context_after_user=True),
    KitClaw("edict-3role", context_after_user=True, closed_loop=False),
    KitClaw("zeroclaw", settings=ZEROCLAW_STANDIN, label="zeroclaw-standin"),
    # The pinned images of ucb-paper (UniClawBench's versions), on the patch half of the kit.
    # Neither release gives the adapter usage figures of its own: the gateway ledger alone is the row's usage.
    KitClaw("nanobot", exits_zero_on_model_failure=True, profile="ucb-paper", label="nanobot-ucb-paper",
            cassette="kit-nanobot-0.1.5.post3", closed_loop=False, reports_usage=False, session_keeps_tool_turns=False),
    KitClaw("openclaw", context_after_user=True, profile="ucb-paper", label="openclaw-ucb-paper",
            cassette="kit-openclaw-2026.3.11", closed_loop=False, reports_usage=False),
]


class RecordingProvider:
    """The scripted model behind a recorder (an ASGI app): every chat request body is kept, and
    the cassette name ``kit-http-<code>`` makes the provider answer that HTTP status."""

    def __init__(self) -> None:
        from clawmark.gateway.scripted import create_scripted_app

        self.scripted = create_scripted_app()
        self._lock = threading.Lock()
        self._requests: list[dict[str, Any]] = []

    def requests(self, cassette: str) -> list[dict[str, Any]]:
        with self._lock:
            return [r for r in self._requests if r.get("model") == cassette]

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope["path"].endswith("/chat/completions"):
            return await self.scripted(scope, receive, send)
        body = await _read_body(receive)
        request = json.loads(body or b"{}")
        with self._lock:
            self._requests.append(request)
        if code := re.fullmatch(r"kit-http-(\d{3})", str(request.get("model"))):
            from fastapi.responses import JSONResponse

            refusal = JSONResponse({"error": {"message": f"kit provider answers {code[1]}", "type": "kit"}},
                                   status_code=int(code[1]))
            return await refusal(scope, receive, send)
        return await self.scripted(scope, _replay(body, receive), send)


async def _read_body(receive: Any) -> bytes:
    body, more = b"", True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    return body


def _replay(body: bytes, receive: Any) -> Any:
    sent = False

    async def replayed() -> dict:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replayed


def texts(messages: list[dict[str, Any]], role: str) -> list[str]:
    """Text of every message of ``role`` (tool calls' arguments included for assistants)."""
    found = []
    for message in messages:
        if message.get("role") == role:
            calls = json.dumps(message.get("tool_calls") or [])
            found.append(content_text(message.get("content")) + calls)
    return found


def follow_up_request(requests: list[dict[str, Any]]) -> tuple[int, dict[str, Any]]:
    """(index, body) of the first request whose last user message is the follow-up."""
    for index, request in enumerate(requests):
        users = texts(request.get("messages") or [], "user")
        if any(FOLLOW_UP_MARK in text for text in users[-2:]):  # OpenClaw appends its own message
            return index, request
    raise AssertionError(f"no request carried the follow-up message among {len(requests)}")


def claw_paths_in_patch(patch: str) -> list[str]:
    """Paths of a diff that are a claw's own files (persona, memory, sessions, state, .git)."""
    paths = re.findall(r"^diff --git a/(\S+) b/", patch, flags=re.M)
    return [p for p in paths if Path(p).name in CLAW_FILE_NAMES or CLAW_DIR_NAMES & set(Path(p).parts[:-1])]


# What the export of an OpenClaw session holds besides its messages: none of it may reach a judge.
EXPORT_EVENT_JSON = ('"traceSchema"', '"type": "assistant.message"', '"source": "transcript"', "toolResult",
                     "[events.jsonl]", "[artifacts.json]", "[session-branch.json]", '"_type": "metadata"')


def supervisor_transcript(request: dict[str, Any]) -> str:
    """The fenced executor transcript of a supervisor's request, gutters removed."""
    prompt = "\n".join(content_text(m.get("content")) for m in request["messages"] if m.get("role") == "user")
    fenced = re.search(r"<<<CLAW-DATA \w+ BEGIN executor transcript>>>\n(.*?)\n<<<CLAW-DATA \w+ END", prompt, re.S)
    assert fenced, prompt[:2000]
    return "\n".join(line.removeprefix("│ ") for line in fenced[1].splitlines())

