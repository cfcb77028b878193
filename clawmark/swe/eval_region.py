"""The test region of clawmark's own evaluations, marked so that nothing the patch prints can
move, end or fake it.

A row's eval script (or the one `make_eval_script` writes) is rewritten before it runs: where it
would print the start marker it sends its output to a region file, where it would print the end
marker it records the test command's exit status and sends its output to a post file, and its
last line exits with that status. The markers themselves are written on the host, around the
region file's content, with a random nonce made for this evaluation only: the nonce never
enters the container (no file, no environment, no argument), so code under test cannot print
a marker that ends the region, and the exit code comes from the exec result, not from a line
in the log. What the script printed before the region (the diff of the patch, apply logs,
installs) is kept for people to read and never parsed as a verdict.
"""

from __future__ import annotations

import re
import secrets
import time
from dataclasses import dataclass

import requests

from clawmark.runtime.engine import shared_client
from clawmark.runtime.errors import ContainerGone, OutOfMemory
from clawmark.swe.eval_script import EXIT_CODE_VAR
from clawmark.swe.log_grading import END_MARKER, EXIT_CODE_LINE, START_MARKER, region_markers

_STATUS_CAPTURE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)=\$\?\s*$")


def _marker_statement(marker: str) -> re.Pattern[str]:
    """A line that only prints `marker` (`: '...'` traced by set -x, or `echo '...'`), so a test
    command or a printed diff that merely mentions the marker text is not taken for it."""
    return re.compile(rf"""^\s*(?::|echo)\s+(['"]?){re.escape(marker)}\1\s*$""")


_START_LINE, _END_LINE = _marker_statement(START_MARKER), _marker_statement(END_MARKER)


class ScriptHasNoMarkers(ValueError):
    """The eval script prints no start marker, or no end marker after it."""


@dataclass(frozen=True)
class RegionFiles:
    """Where the rewritten script writes each part of its output, in the container."""

    before: str
    region: str
    after: str

    @classmethod
    def under(cls, folder: str) -> RegionFiles:
        return cls(f"{folder}/before_tests.txt", f"{folder}/tests.txt", f"{folder}/after_tests.txt")

    def all(self) -> tuple[str, str, str]:
        return (self.before, self.region, self.after)


def new_nonce() -> str:
    return secrets.token_hex(16)


def harness_script(eval_script: str, files: RegionFiles) -> str:
    """`eval_script` with its marker lines replaced by output switches, exiting with the test
    command's status. Scripts of either shape work: `: '>>>>> Start Test Output'` (SWE-bench
    rows) or `echo '...'` with a `rc=$?` capture before the end marker (the bundled rows)."""
    lines = eval_script.rstrip("\n").split("\n")
    start = _first(lines, _START_LINE, 0)
    end = _first(lines, _END_LINE, start + 1) if start is not None else None
    if start is None or end is None:
        raise ScriptHasNoMarkers(f"the eval script prints no {START_MARKER!r} line followed by {END_MARKER!r}")
    captured = _STATUS_CAPTURE.match(lines[end - 1]) if end > start + 1 else None
    status = f"${captured.group(1)}" if captured else "$?"  # the bundled rows capture it themselves
    # One brace group: bash parses all of it before running any, so tests that rewrite the
    # script file while it runs (they run as root) cannot change what is left of it.
    shebang = lines[:1] if lines[0].startswith("#!") else []
    switched = [
        *shebang,
        "{",
        *lines[len(shebang):start],
        f"exec >{files.region} 2>&1",
        *lines[start + 1:end],
        f"{{ {EXIT_CODE_VAR}={status}; }} 2>/dev/null",  # braces: no trace line inside the region
        f"exec >{files.after} 2>&1",
        *lines[end + 1:],
        f'exit "${EXIT_CODE_VAR}"',
        "}",
    ]
    return "\n".join(switched) + "\n"


def assemble_log(before: str, region: str | None, after: str | None, exit_code: int | None, nonce: str) -> str:
    """The saved test log: the script's output with the nonce markers and the harness's exit
    code around the region. No region file means the script never reached its start marker;
    no after file means it never reached its end marker: those markers stay out."""
    start, end = region_markers(nonce)
    parts = [_line_ended(before)]
    if region is not None:
        parts += [start + "\n", _line_ended(region)]
        if after is not None:
            code = "" if exit_code is None else f"{EXIT_CODE_LINE}={exit_code}\n"
            parts += [end + "\n", code, _line_ended(after)]
    return "".join(parts)


def _first(lines: list[str], statement: re.Pattern[str], since: int) -> int | None:
    return next((number for number in range(since, len(lines)) if statement.match(lines[number])), None)


def _line_ended(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


@dataclass(frozen=True)
class RegionRun:
    """One run of a harness script: the assembled log and what the harness saw."""

    log_text: str
    nonce: str
    exit_code: int | None  # the exec result's: None when it was killed on its deadline
    timed_out: bool
    output_bytes: int  # the script's whole output, as found in the container
    flooded: bool  # output_bytes over the limit: the log holds only each part's head and tail
    out_of_memory: bool = False  # the engine saw the kernel OOM-kill a process at the memory limit
    stopped_from_inside: str | None = None  # the tests ended their own container (how), nothing read back


def run_harness_script(sandbox, script_path: str, files: RegionFiles, timeout_s: float,
                       max_output_bytes: int, workdir: str) -> RegionRun:
    """Run the harness script (output to files in the container, not through the exec stream)
    and read back at most `max_output_bytes` of what it wrote."""
    import docker.errors  # heavy (Docker SDK): loaded on first engine use


    since = time.time() - 60  # the engine's clock may be a little off ours
    try:
        result = sandbox.exec(f"bash {script_path} > {files.before} 2>&1", timeout_s=timeout_s, workdir=workdir)
    except OutOfMemory as exc:  # a test process, not the container: the files are still there
        result = exc.result  # the sandbox read the container's own cgroup count; the engine decides below
    except (ContainerGone, docker.errors.APIError) as exc:
        if getattr(getattr(exc, "result", None), "timed_out", False):
            raise  # the deadline's kill had to stop the container: the tests outlived it
        if not _stopped_from_inside(_engine_actions(sandbox, since)):  # the host or the engine stopped it
            raise exc if isinstance(exc, ContainerGone) else ContainerGone(f"container stopped: {exc}") from exc
        return RegionRun("", new_nonce(), None, False, 0, False, stopped_from_inside=str(exc)[:300])
    sizes, oom = _sizes(sandbox, files), _engine_saw_oom(sandbox, since, result)
    total = sum(size for size in sizes.values() if size is not None)
    flooded = total > max_output_bytes
    read = _head_and_tail if flooded else _whole
    parts = {path: None if size is None else read(sandbox, path) for path, size in sizes.items()}
    exit_code = None if result.timed_out else result.exit_code
    log = assemble_log(parts[files.before] or "", parts[files.region], parts[files.after], exit_code, nonce := new_nonce())
    return RegionRun(log, nonce, exit_code, result.timed_out, total, flooded, oom)


_EXCERPT_BYTES = 64 * 1024


def _sizes(sandbox, files: RegionFiles) -> dict[str, int | None]:
    """Byte size of each output file, None for a file the script never created."""
    listing = sandbox.exec("stat -L -c '%s %n' " + " ".join(files.all()) + " 2>/dev/null", timeout_s=60)
    found = {}
    for line in listing.stdout.splitlines():
        size, _, path = line.partition(" ")
        found[path] = size
    return {path: int(found[path]) if path in found else None for path in files.all()}


def _whole(sandbox, path: str) -> str | None:
    """The file's text; None when the tests replaced it with something that is not a file (or
    removed it since): a part they made unreadable is missing, never an error of ours."""
    try:
        return sandbox.read_file(path).decode(errors="replace")
    except (IsADirectoryError, FileNotFoundError):
        return None


def _head_and_tail(sandbox, path: str) -> str:
    """The first and last 64 KiB of a flooded file, for a person to see what flooded it."""
    cut = sandbox.exec(f"head -c {_EXCERPT_BYTES} {path}; echo; echo '[... clawmark: output over the limit, cut ...]';"
                       f" tail -c {_EXCERPT_BYTES} {path}", timeout_s=60)
    return cut.stdout


def _engine_saw_oom(sandbox, since: float, result) -> bool:
    """True when the engine recorded an OOM kill in this container (its `oom` event: the kernel
    killed a process at the container's memory limit). The container's own cgroup count only
    says whether to ask: the tests run as root with SYS_ADMIN and can mount over
    /sys/fs/cgroup, so what they leave there never decides how a run counts."""
    if result.timed_out or result.exit_code == 0 or not hasattr(sandbox, "container_id"):
        return False  # a host shell (unit tests, a local checkout) has no engine to ask
    if result.exit_code != 137 and sandbox.oom_kill_count() == 0:  # a runner may swallow its child's kill
        return False
    actions = _engine_actions(sandbox, since)
    return actions is not None and "oom" in actions


def _stopped_from_inside(actions: set[str] | None) -> bool:
    """True when the container died and the engine never signalled it (no kill, stop or removal
    event): a process inside ended it, e.g. a test that killed PID 1. A container the host or
    the engine stopped carries a kill event; that stays an infrastructure error."""
    return actions is not None and "die" in actions and not actions & {"kill", "stop", "destroy"}


def _engine_actions(sandbox, since: float) -> set[str] | None:
    """What the engine recorded for the container since `since` (docker events: die, kill, oom,
    ...), waiting up to 2 s for events still on their way; None when the engine does not answer."""
    import docker.errors  # heavy (Docker SDK): loaded on first engine use


    try:
        events = shared_client().events(since=int(since), until=int(time.time()) + 2, decode=True,
                                        filters={"container": sandbox.container_id, "type": "container"})
        return {event.get("Action") or event.get("status") for event in events}
    except (docker.errors.DockerException, requests.exceptions.RequestException):
        return None
