"""`clawmark doctor`: is this machine ready to run clawmark?"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import typer

LOW_DISK_BYTES = 10 * 2**30
DEMO_IMAGES = ("python", "workstation", "claw-nanobot", "claw-mini-swe-agent")  # the Makefile's DEMO_IMAGES
ROLES = {"task-runtime": "closed-loop tasks", "task-desktop": "headed closed-loop tasks (a desktop)",
         "judge-agent": "the agentic judge (closed_loop.judge: agent)"}


@dataclass
class Check:
    """One line of the report; a failed required check makes doctor exit non-zero."""

    name: str
    ok: bool
    detail: str
    required: bool = True

    @property
    def state(self) -> str:
        if self.ok:
            return "[green]ok[/green]"
        return "[red]missing[/red]" if self.required else "[yellow]warn[/yellow]"


def doctor(
    reap: bool = typer.Option(False, "--reap", help="Remove leaked sandboxes (owner process gone) first."),
) -> None:
    """Check engine, images, disk, Prefect home and gateway settings; exit 1 if something required is missing."""
    from clawmark.cli.console import console
    from rich.table import Table

    checks = _engine_checks()
    client = checks[0].ok and _client()
    rows = _image_rows(client)
    checks += [_image_check(row) for row in rows] + _disk_checks(client) + [_prefect_check()]
    checks += _gateway_checks(client) + _sandbox_checks(client, reap)
    table = Table("check", "state", "detail", title="clawmark doctor")
    for check in checks:
        table.add_row(check.name, check.state, check.detail)
    console().print(table)
    failed = [c.name for c in checks if c.required and not c.ok]
    if failed:
        typer.echo(f"not ready: {', '.join(failed)} (try `make engine`)", err=True)
        raise typer.Exit(1)
    for line in readiness(rows):
        typer.echo(line)


def _client():
    from clawmark.runtime.engine import docker_client

    return docker_client(timeout_s=20)


def _engine_checks() -> list[Check]:
    import docker

    from clawmark.runtime.errors import EngineUnavailable

    try:
        version = _client().version()
    except EngineUnavailable as exc:
        return [Check("docker engine", False, str(exc))]
    detail = f"server {version.get('Version')} (API {version.get('ApiVersion')}), docker SDK {docker.__version__}"
    return [Check("docker engine", True, detail)]


def _image_rows(client) -> list:
    from clawmark.runtime.images import list_images

    return list_images() if client else []


def _image_check(row) -> Check:
    """An image is built on demand or by name: a missing one is a warning (readiness says what for)."""
    if row.present:
        return Check(f"image {row.name}", True, f"{row.ref} ({row.size_bytes / 2**20:.0f} MiB)")
    return Check(f"image {row.name}", False, f"{row.ref} not built (what needs it: below)", required=False)


def image_purpose(name: str) -> str:
    """What a recipe's image is for (its labels, the patch track's languages) and the command building it."""
    from clawmark.runtime.recipes import discover
    from clawmark.swe.instance_image import LANGUAGE_IMAGES

    recipes = discover()
    recipe = recipes[name]
    uses = [f"the {recipe.labels['clawmark.claw']} claw"] if "clawmark.claw" in recipe.labels else []
    uses += [ROLES[recipe.labels["clawmark.role"]]] if recipe.labels.get("clawmark.role") in ROLES else []
    languages = sorted({language for language, image in LANGUAGE_IMAGES.items() if image == name})
    uses += [f"patch tasks in {'/'.join(languages)}"] if languages else []
    children = sorted(child for child, r in recipes.items() if r.parent == name)
    uses += [f"the images built on it ({', '.join(children)})"] if children and not uses else []
    opt_in = f" (opt-in: `images build --all` skips it; images/{name}/README.md)" if recipe.opt_in else ""
    return f"for {' and '.join(uses) or 'nothing bundled'}: `clawmark images build {name}`{opt_in}"


def readiness(rows) -> list[str]:
    """What this machine can run now, and the build each other use needs."""
    if not rows:
        return []
    missing = [row.name for row in rows if not row.present]
    demo_missing = [name for name in DEMO_IMAGES if name in missing]
    lines = [f"demo: needs `clawmark images build {' '.join(demo_missing)}` (or `make demo`)" if demo_missing
             else "demo: ready (`clawmark demo` or `make demo`)"]
    lines += [image_purpose(name) for name in missing if name not in DEMO_IMAGES]
    return lines


def network_check(client, name: str) -> Check:
    """One clawmark network: absent (made on first use), one, or duplicates and what happens to them."""
    from clawmark.runtime.network import DuplicateNetworks, checked, keeper, network_copies

    copies = network_copies(client, name)
    if not copies:
        return Check(f"network {name}", True, "not created yet: made on first use")
    ids = ", ".join(n.id[:12] for n in copies)
    try:
        keep = keeper(name, copies)
        checked(keep)
    except (DuplicateNetworks, RuntimeError) as exc:
        return Check(f"network {name}", False, str(exc))
    if len(copies) == 1:
        return Check(f"network {name}", True, f"{keep.id[:12]}")
    return Check(f"network {name}", False, f"{len(copies)} networks of this name ({ids}): the next run keeps "
                 f"{keep.id[:12]} and removes the others (none has containers)", required=False)


def _disk_checks(client) -> list[Check]:
    from clawmark.settings import settings

    places = {"CLAWMARK_HOME": settings().home}
    if client:
        places["docker root"] = Path(client.info().get("DockerRootDir", "/var/lib/docker"))
    return [_free_space(label, path) for label, path in places.items()]


def _free_space(label: str, path: Path) -> Check:
    existing = next((p for p in [path, *path.parents] if p.exists()), None)
    if existing is None:
        return Check(f"disk ({label})", False, f"{path}: no existing parent", required=False)
    free = shutil.disk_usage(existing).free
    detail = f"{free / 2**30:.1f} GiB free under {path}"
    return Check(f"disk ({label})", free >= LOW_DISK_BYTES, detail + ("" if free >= LOW_DISK_BYTES else " (low)"), required=False)


def _prefect_check() -> Check:
    # Prefect's own resolution (environment, then the active profile), not a guess at it.
    from prefect.settings import PREFECT_API_URL, PREFECT_HOME

    home = Path(PREFECT_HOME.value()).expanduser()
    api = PREFECT_API_URL.value() or "none (temporary local server per process)"
    writable = os.access(next(p for p in [home, *home.parents] if p.exists()), os.W_OK)
    return Check("prefect home", writable, f"{home} ({'writable' if writable else 'NOT writable'}); API: {api}")


def _gateway_checks(client) -> list[Check]:
    from clawmark.runtime.network import GATEWAY_NETWORK, OPEN_NETWORK
    from clawmark.settings import settings

    config = settings()
    port = config.gateway_port or "any free port"
    checks = [Check("gateway settings", True, f"bind {config.gateway_host}:{port}", required=False)]
    if client:
        checks += [network_check(client, GATEWAY_NETWORK), network_check(client, OPEN_NETWORK)]
    return checks


def _sandbox_checks(client, reap: bool) -> list[Check]:
    from clawmark.runtime import janitor, owner

    if not client:
        return []
    reaped = janitor.reap(client=client) if reap else []
    containers = client.containers.list(all=True, filters={"label": "clawmark.managed=true"}, ignore_removed=True)
    leaked = [c for c in containers if owner.owner_is_gone(c.labels)]
    detail = f"{len(containers)} clawmark containers, {len(leaked)} leaked"
    detail += f", {len(reaped)} reaped now" if reap else (" (clawmark doctor --reap removes them)" if leaked else "")
    return [Check("sandboxes", not leaked, detail, required=False)]
