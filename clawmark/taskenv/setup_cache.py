"""Set-up captured once per input hash and reused: a task container whose oneshot services already ran.

What a task does before its first turn (layout, injected sources/skills/services, the desktop
hook's files, the oneshot services that come before its first background one: apt, pip, npm,
fixtures) is the same for every claw x model x seed of that task. The first attempt of a key
runs it in a *capture* container that no claw ever enters, commits that container's filesystem
as `clawmark-setup:<key>`, and every attempt (that one too) starts from the image; background
services and the desktop start again in each attempt's own container, so the claw finds them live.

- The key hashes everything that shapes the result: the task's content (after its pre_exec, which
  still runs on the host for every attempt: what it regenerated is in the key) and the cached services'
  specs, the base image's id, the executor user, snapshot mode, network policy, base skills,
  the container's task environment and host aliases, the hooks run before services. A changed
  input is a new key; `clawmark images prune` drops images of stale bases, the instance-image
  budget (CLAWMARK_IMAGE_BUDGET_GB) prunes the least recently used.
- Write-then-publish: the commit lands under a `partial-*` tag and is tagged `<key>` only once
  complete; only `<key>` is ever looked up, and the next capture of the key removes partials.
- Not cached, and the row says why (`setup_cache: off: ...`): the sweep turned it off, the task
  opts out (`setup_cache: false`) or its set-up reads today's date (unless the task, or for an
  upstream task tasks_catalog/overlays/uniclawbench.yaml, says `setup_cache: true`: reviewed, the
  date only stamps the set-up), `.privacy` values in the
  container (a secret would outlive the attempt in the image), the web proxy (its CA and archive are the
  attempt's), no oneshot set-up, or a oneshot service left a process running (it would be gone).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from clawmark import failpoint
from clawmark.catalog.overlay import setup_cache_hint
from clawmark.runtime.engine import shared_client
from clawmark.runtime.engine_lock import engine_lock
from clawmark.runtime.errors import ImageMissing
from clawmark.runtime.image_cache import ImageCacheConfig, prune_to_budget, record_use
from clawmark.settings import settings
from clawmark.taskenv.config import executor_gets_credentials
from clawmark.taskenv.container_layout import PRIVATE_DIR
from clawmark.taskenv.inject import skills_identity

REPOSITORY = "clawmark-setup"
FORMAT = 1
RECORD_PATH = f"{PRIVATE_DIR}/setup.json"  # root-only: what the capture injected and ran
COMMITTED_POINT = "setup-capture-committed"  # fail point: committed, not yet published
DATE_READS = re.compile(rb"\$\(\s*date\b|`date\b|\bdate\s+[+-]|datetime\.(?:now|today|utcnow)\b|date\.today\(|"
                        rb"Date\.now\(|new Date\(\s*\)")
MAX_SCANNED_BYTES = 2 * 2**20
PIDS_SCRIPT = 'for d in /proc/[0-9]*; do p="${d#/proc/}"; [ "$p" = "$$" ] || echo "$p"; done'
# A desktop hook's live state: the desktop stopped, then the X server's lock and socket and
# Chromium's profile locks removed (a capture's would stop the attempt's desktop from starting).
QUIESCE_SCRIPT = """if command -v clawmark-desktop-stop >/dev/null; then clawmark-desktop-stop; sleep 1; fi
rm -rf /tmp/.X*-lock /tmp/.X11-unix/X* /tmp/clawmark-desktop
find /root /home -maxdepth 5 -path '*chrom*' -name 'Singleton*' -exec rm -f {} + 2>/dev/null
true"""


class SetupPlan(BaseModel):
    """Whether this attempt's set-up comes from the cache, under which key, and which services it covers."""

    key: str | None = None
    off: str | None = None  # why not, when not
    cached_services: list[str] = []
    base_image_id: str | None = None

    @property
    def ref(self) -> str:
        return f"{REPOSITORY}:{self.key}"


def plan_setup(task, config, hooks: tuple, on_layout: tuple, base_image: str) -> SetupPlan:
    """The plan for this task and container config (`base_image`: the ref the container would use)."""

    prefix = _oneshot_prefix(task)
    chosen, why = (task.spec.setup_cache, "") if task.spec.setup_cache is not None else setup_cache_hint(task)
    off = (
        "the task opts out (setup_cache: false)" if chosen is False and not why else
        f"the overlay says its set-up must be fresh ({why})" if chosen is False else
        "web proxy (its CA and archive are the attempt's)" if on_layout else
        ".privacy values reach the set-up" if config.credentials and executor_gets_credentials(task) else
        "no oneshot set-up" if not prefix else
        None if chosen else _reads_date(task, prefix)  # reviewed: its date reads only stamp the set-up
    )
    if off:
        return SetupPlan(off=off)
    inputs = {
        "format": FORMAT, "task": task.content_hash(), "services": [s.spec.model_dump(mode="json") for s in prefix],
        "image": (base_id := _image_id(base_image)), "executor_user": config.executor_user,
        "snapshot": config.snapshot, "network_policy": config.network_policy,
        "base_skills": skills_identity(config.base_skills or []), "env": sorted(config.env.items()),
        "extra_hosts": sorted(config.extra_hosts.items()), "hooks": [_name(h) for h in hooks],
    }
    key = hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()[:24]
    if (verdict := _not_cacheable_file(key)).is_file():
        return SetupPlan(off=json.loads(verdict.read_text()).get("why", "not cacheable"))
    return SetupPlan(key=key, cached_services=[s.spec.name for s in prefix], base_image_id=base_id)


def cached_image(plan: SetupPlan, capture: Callable[[], tuple], lock_timeout_s: float) -> tuple[str | None, str]:
    """(the image to start from, "hit" | "captured" | "off: why"), once per key on this engine.
    `capture()` provisions a capture container, sets it up, and returns (sandbox, record, why):
    `why` says the set-up proved not cacheable (remembered for the key; None is returned then)."""
    import docker  # heavy (Docker SDK): loaded on first engine use

    client = shared_client()
    with engine_lock(f"setup-cache-{plan.key}", timeout_s=lock_timeout_s):
        try:
            client.images.get(plan.ref)
            record_use(plan.ref, ImageCacheConfig.from_env())
            return plan.ref, "hit"
        except docker.errors.ImageNotFound:
            pass
        _remove_partials(client, plan.key)
        sandbox, record, why = capture()
        try:
            if why:
                verdict = _not_cacheable_file(plan.key)
                verdict.parent.mkdir(parents=True, exist_ok=True)
                verdict.write_text(json.dumps({"why": why}))
                return None, f"off: {why}"
            _publish(client, sandbox, plan, record)
        finally:
            sandbox.teardown()
    cache = ImageCacheConfig.from_env()
    record_use(plan.ref, cache, made_here=True)
    prune_to_budget(cache, keep={plan.ref})
    return plan.ref, "captured"


def processes(sandbox) -> set[str]:
    """Every process id in the container but the probe's own."""
    out = sandbox.exec(["sh", "-c", PIDS_SCRIPT], timeout_s=30, user="0", workdir="/").stdout
    return set(out.split())


def left_running(sandbox, before: set[str]) -> str | None:
    """Why the set-up cannot be cached when a process it started is still alive, else None."""
    new = sorted(processes(sandbox) - before, key=int)
    if not new:
        return None
    script = 'for p in "$@"; do tr "\\0" " " < /proc/$p/cmdline 2>/dev/null; echo; done'
    names = sandbox.exec(["sh", "-c", script, "cmdlines", *new[:3]], timeout_s=30, user="0", workdir="/").stdout
    shown = "; ".join(line.strip()[:80] for line in names.splitlines() if line.strip())
    return f"a oneshot service left {len(new)} process(es) running ({shown or 'gone since'})"


def read_record(sandbox) -> dict:
    return json.loads(sandbox.read_file(RECORD_PATH))


def _publish(client, sandbox, plan: SetupPlan, record: dict) -> None:
    sandbox.write_file(RECORD_PATH, json.dumps(record, ensure_ascii=False).encode(), mode=0o600)
    sandbox.exec(["sh", "-c", QUIESCE_SCRIPT], timeout_s=60, user="0", workdir="/")
    container = client.containers.get(sandbox.container_id)
    base = client.images.get(sandbox.config.image)
    partial = f"partial-{plan.key}-{os.getpid()}"
    image = container.commit(repository=REPOSITORY, tag=partial, pause=True,
                             changes=_label_changes(container.labels, base, plan))
    failpoint.reach(COMMITTED_POINT)
    image.tag(REPOSITORY, plan.key)
    client.images.remove(f"{REPOSITORY}:{partial}")  # only the tag: the image keeps its published one


def _label_changes(container_labels: dict, base, plan: SetupPlan) -> list[str]:
    """The capture's own labels blanked (an attempt started from the image sets its own), the
    image named a setup cache, a child of its base (pruned when the base goes stale)."""
    base_labels = base.labels or {}
    blank = sorted(k for k in container_labels if k not in base_labels)
    labels = {**{k: "" for k in blank}, "clawmark.kind": "setup-cache", "clawmark.setup_key": plan.key,
              "clawmark.parent": (base.tags or [base.id])[0]}
    return ["LABEL " + " ".join(f"{k}={json.dumps(v)}" for k, v in labels.items())]


def _remove_partials(client, key: str) -> None:
    import docker  # heavy (Docker SDK): loaded on first engine use

    for image in client.api.images(name=REPOSITORY):
        for tag in image.get("RepoTags") or []:
            if tag.startswith(f"{REPOSITORY}:partial-{key}-"):
                try:
                    client.images.remove(tag)
                except docker.errors.APIError:
                    pass  # gone already, or in use: never looked up either way


def _oneshot_prefix(task) -> list:
    prefix = []
    for service in task.services:
        if not service.spec.oneshot:
            break
        prefix.append(service)
    return prefix


def _reads_date(task, prefix: list) -> str | None:
    for service in prefix:
        texts = [(f"services[{service.spec.name}].start", service.spec.start.encode())]
        texts += [(p.relative_to(task.package_dir).as_posix(), p.read_bytes())
                  for p in sorted(Path(service.folder).rglob("*"))
                  if p.is_file() and p.stat().st_size <= MAX_SCANNED_BYTES]
        for where, text in texts:
            if DATE_READS.search(text):
                return f"its set-up reads today's date ({where})"
    return None


def _image_id(ref: str) -> str:
    import docker  # heavy (Docker SDK): loaded on first engine use

    try:
        return shared_client().images.get(ref).id
    except docker.errors.ImageNotFound as exc:
        raise ImageMissing.not_present(ref) from exc


def _name(hook) -> str:
    hook = getattr(hook, "func", hook)
    return f"{getattr(hook, '__module__', '')}.{getattr(hook, '__qualname__', type(hook).__name__)}"


def _not_cacheable_file(key: str) -> Path:
    """Where a key's verdict "not cacheable" (and why) is remembered on this host."""
    return settings().home / "setup-cache" / f"{key}.off.json"
