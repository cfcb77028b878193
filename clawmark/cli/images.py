"""`clawmark images ...` commands."""

from __future__ import annotations

import typer

from clawmark.stopwatch import Stopwatch

app = typer.Typer(no_args_is_help=True)


@app.command("build")
def build_cmd(
    names: list[str] = typer.Argument(None, help="Recipe names (folders under images/)."),
    all_: bool = typer.Option(False, "--all", help="Build every recipe."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show every build log line."),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, max=8, help="Images built at once. Builds spend much of "
                             "their time downloading packages, so 2-3 finish sooner even on 2 cores; a parent "
                             "two images share is built once (the per-image lock), the other waits for it."),
) -> None:
    """Build images whose content-hash tag is missing; present ones are left alone."""
    from clawmark.cli.console import console as make_console

    from clawmark.runtime import images
    from clawmark.runtime.errors import RuntimeFailure
    from clawmark.runtime.recipes import build_order, discover

    console = make_console()
    try:
        recipes = discover()
        every = all_ or not names
        wanted = [n for n, r in recipes.items() if not r.opt_in] if every else names
        for name in sorted(set(recipes) - set(wanted)) if every else ():  # named images: no notice about others
            console.print(f"[dim]{name}: opt-in recipe, built only when named (images/{name}/README.md)[/dim]")
        missing = build_order([n for n in wanted if not images.image_present(images.image_ref(n))], recipes)
        if not missing:
            console.print(f"all {len(wanted)} images present; nothing to build")
            return
        if present := [n for n in wanted if n not in missing]:
            console.print(f"[dim]present: {', '.join(present)}[/dim]")
        labels = {name: f"[{number}/{len(missing)}] {name}" for number, name in enumerate(missing, 1)}
        if jobs == 1:
            for name in missing:
                _build_one(console, images, name, verbose, labels[name])
        else:
            _build_parallel(console, images, missing, labels, jobs, verbose)
    except RuntimeFailure as exc:
        _fail(console, exc)
        raise typer.Exit(1) from None


def _build_one(console, images, name: str, verbose: bool, label: str) -> None:
    from clawmark.cli.image_progress import BuildView

    ref = images.image_ref(name)
    if images.image_present(ref):
        console.print(f"[dim]{ref} present[/dim]")
        return
    watch, lines = Stopwatch(), []
    console.print(f"{label}: building {ref}", highlight=False, markup=False)
    with BuildView(console, label, verbose=verbose) as view:
        def progress(line: str) -> None:
            lines.append(line)
            view.line(line)

        images.ensure_image(name, progress=progress)
    verb = "built" if lines else "present (built meanwhile by another process)"
    console.print(f"{label}: [green]{verb}[/green] {ref} in {watch.elapsed():.0f}s", highlight=False)


def _build_parallel(console, images, missing: list[str], labels: dict[str, str], jobs: int, verbose: bool) -> None:
    """Build `missing` `jobs` at a time; each image's progress prints as lines (a live line per
    image would interleave). The first failure is raised once every started build has ended."""
    from concurrent.futures import ThreadPoolExecutor

    from rich.console import Console

    lines_only = Console(file=console.file, force_terminal=False, width=console.width) if console.is_terminal else console
    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="image-build") as pool:
        futures = [pool.submit(_build_one, lines_only, images, name, verbose, labels[name]) for name in missing]
    for future in futures:
        future.result()


@app.command("list")
def list_cmd() -> None:
    """Show every recipe: current tag, present or missing, size."""
    from clawmark.cli.console import console as make_console
    from rich.table import Table

    from clawmark.runtime.errors import RuntimeFailure
    from clawmark.runtime.images import list_images

    console = make_console()
    try:
        rows = list_images()
    except RuntimeFailure as exc:
        _fail(console, exc)
        raise typer.Exit(1) from None
    table = Table("name", "tag", "parent", "state", "size")
    for row in rows:
        state = "[green]present[/green]" if row.present else "[yellow]missing[/yellow]"
        size = f"{row.size_bytes / 2**20:.0f} MiB" if row.size_bytes else "-"
        table.add_row(row.name, row.ref.rsplit(":", 1)[1], row.parent or "-", state, size)
    console.print(table)


@app.command("prune")
def prune_cmd(
    all_: bool = typer.Option(False, "--all", help="Also remove the current tags."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Only list what would be removed."),
) -> None:
    """Remove clawmark-labelled images that no current recipe (or its descendants) uses."""
    from clawmark.cli.console import console as make_console

    from clawmark.runtime.errors import RuntimeFailure
    from clawmark.runtime.images import prune_images

    console = make_console()
    try:
        removed, failed = prune_images(all_images=all_, dry_run=dry_run)
    except RuntimeFailure as exc:
        _fail(console, exc)
        raise typer.Exit(1) from None
    verb = "would remove" if dry_run else "removed"
    for ref in removed:
        console.print(f"{verb} {ref}", highlight=False)
    for line in failed:
        console.print(f"[yellow]kept[/yellow] {line}", highlight=False)
    console.print(f"{len(removed)} {verb}, {len(failed)} could not be removed")


@app.command("push")
def push_cmd(
    names: list[str] = typer.Argument(None, help="Recipe names (default: every recipe present here)."),
    worker: bool = typer.Option(False, "--worker", help="Also the worker image of this checkout."),
) -> None:
    """Push images to CLAWMARK_IMAGE_REGISTRY, so pool workers pull them instead of building."""
    from clawmark.cli.console import console as make_console

    from clawmark.runtime import image_registry, images
    from clawmark.runtime.errors import RuntimeFailure
    from clawmark.runtime.worker_image import ensure_worker_image

    console = make_console()
    try:
        refs = [images.image_ref(name) for name in names] if names else \
            [row.ref for row in images.list_images() if row.present]
        if missing := [ref for ref in refs if not images.image_present(ref)]:
            raise RuntimeFailure(f"not built here: {', '.join(missing)} (`clawmark images build` first)")
        refs += [ensure_worker_image(progress=lambda line: None)] if worker else []
        for remote in image_registry.push(refs):
            console.print(f"pushed {remote}", highlight=False)
    except RuntimeFailure as exc:
        _fail(console, exc)
        raise typer.Exit(1) from None


@app.command("worker")
def worker_cmd(
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show every build log line."),
) -> None:
    """Build the pool worker's image of this checkout (its code, a venv, a Docker engine of its
    own) and print its ref: `docker run --privileged -v clawmark-worker:/var/lib/docker
    -e PREFECT_API_URL=... REF POOL` joins the pool from any machine with Docker."""
    from clawmark.cli.console import console as make_console

    from clawmark.runtime.errors import RuntimeFailure
    from clawmark.runtime.worker_image import ensure_worker_image

    console = make_console()
    try:
        ref = ensure_worker_image(progress=(lambda line: console.print(line, highlight=False, markup=False))
                                  if verbose else None)
    except RuntimeFailure as exc:
        _fail(console, exc)
        raise typer.Exit(1) from None
    console.print(ref, highlight=False)


def _fail(console, exc: Exception) -> None:
    console.print(f"[red]error:[/red] {exc}", highlight=False, soft_wrap=True)
