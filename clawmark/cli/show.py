"""`clawmark show ATTEMPT_DIR`: one closed-loop attempt, cycle by cycle, from its folder alone.

For each executor turn: how the claw stopped, its transcript (the same message and tool-call
sequence the supervisor read, the last few messages one line each), the supervisor's decision
and score (in code, after checks and caps), the checks that passed, and the feedback the
executor got next, with any leak-audit flags; then the outcome and tokens per role. Exit 1 when
the folder is not an attempt folder."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import typer

from clawmark.jsontypes import JsonValue
from clawmark.results.outcome import best_turn_of_row
from clawmark.results.transcript import TranscriptMessage, load, render

FEEDBACK_CHARS = 400
LINE_CHARS = 160


def show(attempt_dir: Path = typer.Argument(..., help="An attempt folder (artifacts_dir of a row)."),
         messages: int = typer.Option(8, "--messages", "-m", min=0,
                                      help="Transcript messages shown per turn, the last ones (0: all).")) -> None:
    """Print a closed-loop attempt cycle by cycle (turn, decision, score, feedback sent)."""
    cycles = attempt_dir / "cycles"
    if not (attempt_dir / "config.json").is_file():
        typer.echo(f"error: {attempt_dir}: config.json: an attempt folder (one with config.json)", err=True)
        raise typer.Exit(1)
    typer.echo(_header(attempt_dir))
    folders = sorted((p for p in cycles.iterdir() if p.name.isdigit()), key=lambda p: int(p.name)) if cycles.is_dir() else []
    for folder in folders:
        typer.echo(_cycle(folder, messages))
    typer.echo(_footer(attempt_dir))


def _load(path: Path) -> JsonValue:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _header(attempt_dir: Path) -> str:
    config = _load(attempt_dir / "config.json") or {}
    models = config.get("models") or {}
    claw = (config.get("claw") or {}).get("name", "?")
    roles = ", ".join(f"{k}={v}" for k, v in models.items())
    return f"attempt {attempt_dir.name}: task {config.get('task_id', '?')}, claw {claw}, seed {config.get('seed')}\n  {roles}"


def _cycle(folder: Path, shown: int) -> str:
    turn = _load(folder / "turn.json") or {}
    lines = [f"\n── turn {int(folder.name) + 1} ──",
             f"  claw: {turn.get('exit_status', '?')} ({turn.get('finish_reason', '?')}, {turn.get('duration_s', 0):.1f} s)"]
    lines += _transcript_lines(_transcript(folder), shown)
    lines += _decision_lines(_load(folder / "decision.json"), _load(folder / "checks.json") or [])
    feedback = (folder / "feedback.txt").read_text(encoding="utf-8") if (folder / "feedback.txt").is_file() else ""
    if feedback:
        lines.append("  feedback sent: " + feedback[:FEEDBACK_CHARS].replace("\n", "\n                 "))
    if flags := _load(folder / "leak.json"):
        lines.append(f"  flags: {', '.join(flags)}")
    return "\n".join(lines)


def _transcript(folder: Path) -> list[TranscriptMessage]:
    """The cycle's saved transcript; normalised from its session backup when an older attempt
    has none (never written back: show only reads)."""
    if (folder / "transcript.json").is_file():
        return load(folder / "transcript.json")
    from clawmark.claws.transcripts import read_transcript

    return read_transcript(folder / "transcript")


def _transcript_lines(messages: list[TranscriptMessage], shown: int) -> list[str]:
    calls = Counter(call.name for m in messages for call in m.tool_calls)
    tools = ", ".join(f"{name}×{n}" for name, n in calls.most_common())
    lines = [f"  transcript: {len(messages)} messages, {sum(calls.values())} tool calls" + (f" ({tools})" if tools else "")]
    picked = messages[-shown:] if shown else messages
    if len(picked) < len(messages):
        lines.append(f"    ... {len(messages) - len(picked)} earlier messages")
    for message in picked:
        text = " ⏎ ".join(render([message]).splitlines())
        lines.append("    " + (text if len(text) <= LINE_CHARS else text[: LINE_CHARS - 1] + "…"))
    return lines


def _decision_lines(decision: JsonValue, checks: list[dict]) -> list[str]:
    if not decision:
        return ["  decision: (none: the cycle stopped before judging)"]
    if "error" in decision:
        return [f"  decision: ERROR {decision['error']}", f"  raw replies: {len(decision.get('raw_outputs') or [])}"]
    final = decision.get("decision") or {}
    score = decision.get("score") or {}
    passed = sum(1 for c in checks if c.get("passed"))
    lines = [f"  decision: {final.get('verdict')} / {final.get('attempt_state')}, score {final.get('score')}"
             f" (supervisor said {score.get('supervisor_score')}), confidence {final.get('confidence')}"]
    if checks:
        failed = [c["id"] for c in checks if not c.get("passed")]
        lines.append(f"  checks: {passed}/{len(checks)} passed" + (f"; failed: {', '.join(failed)}" if failed else ""))
    if score.get("caps_applied"):
        lines.append(f"  caps: {', '.join(score['caps_applied'])} → ≤ {score.get('cap')}")
    lines.append(f"  rationale: {(final.get('rationale') or '')[:300]}")
    return lines


def _footer(attempt_dir: Path) -> str:
    outcome = _load(attempt_dir / "outcome.json") or {}
    row = _load(attempt_dir / "row.json") or {}
    usage = _load(attempt_dir / "usage.json") or {}
    lines = ["\n── outcome ──",
             f"  status {outcome.get('status')}, passed {row.get('passed')}, score {outcome.get('score')} "
             f"(threshold {outcome.get('threshold')}), best turn "
             f"{best_turn_of_row(row.get('best_turn')) or '-'}, stop: {outcome.get('stop_reason')}"]
    if outcome.get("error_message"):
        lines.append(f"  error: {outcome['error_message']}")
    for role, totals in usage.items():
        lines.append(f"  {role}: {totals.get('calls')} calls, {totals.get('input_tokens')} in / "
                     f"{totals.get('output_tokens')} out, ${totals.get('cost_usd', float('nan')):.4f}")
    return "\n".join(lines)
