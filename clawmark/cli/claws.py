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


def claw_rows() -> list[dict[str, str]]:
    from clawmark.claws import claw_names, get_claw

    rows = []
    for name in claw_names():
        claw = get_claw(name)
        tracks = ("patch",) if claw.needs_gold_patch else claw.tracks
        rows.append({"claw": name, "version": claw.version, "image": image_state(claw.needs_image_layer),
                     "tracks": ", ".join(tracks), "in container": "yes" if claw.runs_in_container else "no",
                     "usage it reports": usage_report(claw), "note": getattr(claw, "list_note", "")})
    return rows


@app.command("list")
def list_cmd() -> None:
    """Each claw: pinned version, image status, tracks, in-container or host, self-reported usage."""
    from rich.table import Table

    from clawmark.cli.console import console as make_console

    rows = claw_rows()
    columns = [key for key in rows[0] if key != "note"]
    table = Table(*columns, title="claws")
    for row in rows:
        table.add_row(*(row[key] for key in columns))
    console = make_console()
    console.print(table)
    for row in rows:
        if row["note"]:
            console.print(f"{row['claw']}: {row['note']}")
