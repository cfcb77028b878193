"""`clawmark doctor`: is this machine ready to run clawmark?"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import typer

LOW_DISK_BYTES = 10 * 2**30


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
    checks += _image_checks(client) + _disk_checks(client) + [_prefect_check()] + _gateway_checks(client)
    checks += _sandbox_checks(client, reap)
    table = Table("check", "state", "detail", title="clawmark doctor")
    for check in checks:
        table.add_row(check.name, check.state, check.detail)
    console().print(table)
    failed = [c.name for c in checks if c.required and not c.ok]
    if failed:
        typer.echo(f"not ready: {', '.join(failed)} (try `make engine` / `make images`)", err=True)
        raise typer.Exit(1)


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


def _image_checks(client) -> list[Check]:
    from clawmark.runtime.images import list_images
    from clawmark.runtime.recipes import discover

    if not client:
        return [Check("images", False, "engine unavailable: cannot check")]
    opt_in = {name for name, recipe in discover().items() if recipe.opt_in}
    return [_image_check(row, row.name in opt_in) for row in list_images()]


def _image_check(row, opt_in: bool) -> Check:
    """A missing opt-in image (e.g. claw-zeroclaw) is a warning that says what to supply."""
    if row.present:
        return Check(f"image {row.name}", True, f"{row.ref} ({row.size_bytes / 2**20:.0f} MiB)")
    if opt_in:
        return Check(f"image {row.name}", False, f"{row.ref} not built: opt-in, the real binary must be "
                                                 f"supplied (images/{row.name}/README.md)", required=False)
    return Check(f"image {row.name}", False, f"{row.ref} not built: clawmark images build {row.name}")


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
    from clawmark.runtime.network import gateway_network
    from clawmark.settings import settings

    config = settings()
    port = config.gateway_port or "any free port"
    checks = [Check("gateway settings", True, f"bind {config.gateway_host}:{port}", required=False)]
    if client:
        try:
            name, host_ip = gateway_network(client)
            checks.append(Check("gateway network", True, f"{name}: containers reach the host at {host_ip}"))
        except Exception as exc:  # noqa: BLE001 - report any engine refusal as one line
            checks.append(Check("gateway network", False, f"cannot create the internal network: {exc}"))
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
