"""`clawmark claws list`: every registered claw, its exact version, image, tracks, where it runs
and what usage it reports about itself (a cross-check of the gateway ledger, never the truth)."""

from __future__ import annotations

import typer

app = typer.Typer(no_args_is_help=True)


def image_state(recipe: str | None) -> str:
    """`-` (no image layer), `present <ref>`, `missing: …` with what to do, or why unknown."""
    if recipe is None:
        return "- (runs on the host)"
    from clawmark.runtime.errors import RuntimeFailure
    from clawmark.runtime.images import image_present, image_ref
    from clawmark.runtime.recipes import get_recipe

    try:
        ref = image_ref(recipe)
        if image_present(ref):
            return f"present {ref}"
    except RuntimeFailure as exc:
        return f"unknown ({exc})"
    if get_recipe(recipe).opt_in:
        return f"missing: opt-in, the real binary must be supplied (images/{recipe}/README.md)"
    return f"missing: clawmark images build {recipe}"


def usage_report(claw) -> str:
    from clawmark.claws import ClawAdapter

    if claw.usage_report:
        return claw.usage_report
    if type(claw).collect_usage is not ClawAdapter.collect_usage:
        return "collect_usage (see its adapter)"
    return "none (the gateway ledger only)"


def claw_rows(profile: str = "clawmark") -> list[dict[str, str]]:
    """One row per claw the profile runs, at the version and image it pins."""
    from clawmark.claws import claw_names, get_claw
    from clawmark.claws.profiles import load_profile

    pinned = load_profile(profile)
    rows = []
    for name in claw_names():
        if not pinned.every_claw and name not in pinned.claws:
            continue
        claw = get_claw(name)
        pins = pinned.claws.get(name)
        if pins is not None:  # versions and images only: prompts need the user's checkout, not a listing
            claw.pin(profile, version=pins.version, image=pins.image, prompt=None, fixed={})
        tracks = ("patch",) if claw.needs_gold_patch else claw.tracks
        rows.append({"claw": name, "version": claw.version, "image": image_state(claw.needs_image_layer),
                     "tracks": ", ".join(tracks), "in container": "yes" if claw.runs_in_container else "no",
                     "usage it reports": usage_report(claw), "note": getattr(claw, "list_note", "")})
    return rows


@app.command("list")
def list_cmd(profile: str = typer.Option("clawmark", "--profile", help="Protocol profile: clawmark, ucb-paper or "
                                         "csb-paper (its claws at the versions it pins).")) -> None:
    """Each claw: pinned version, image status, tracks, in-container or host, self-reported usage."""
    from rich.table import Table

    from clawmark.cli.console import console as make_console
    from clawmark.claws.profiles import ProfileError

    try:
        rows = claw_rows(profile)
    except ProfileError as exc:
        make_console().print(f"[red]--profile: {exc}[/red]")
        raise typer.Exit(2) from None
    columns = [key for key in rows[0] if key != "note"]
    table = Table(*columns, title=f"claws ({profile} profile)")
    for row in rows:
        table.add_row(*(row[key] for key in columns))
    console = make_console()
    console.print(table)
    for row in rows:
        if row["note"]:
            console.print(f"{row['claw']}: {row['note']}")
