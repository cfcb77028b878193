"""Correct runs of real UniClawBench sample tasks, for measuring the audit's precision: for each
task a scripted executor (reference claw) that does what a correct claw does — looks at its
sources and skills, writes the right deliverables (the values of the task's own ground truth),
reads them back and states its results — and a scripted supervisor that passes it. One task
takes a follow-up first (the simulator channel is exercised too)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.support.closed_loop_fixtures import UPSTREAM, decision, sim_reply

RESULTS = "/tmp_workspace/results"
# (category, task id): five capabilities, both languages
SAMPLE = [
    ("101_skill_usage", "task_101_03_access_log_regex"),
    ("102_exploration", "task_102_11_ecb_fx_xml_feed"),
    ("103_long_context", "task_103_06_self_hosted_rss_landscape"),
    ("104_multimodal", "task_104_32_home_of_the_blues_lrc"),
    ("201_skill_usage_zh", "task_201_31_postmortem_merge"),
    ("204_multimodal_zh", "task_204_31_bye_bye_love_lrc"),
    ("205_cross_platform_zh", "task_205_11_denver_web_plan"),
]
TWO_TURNS = "task_102_11_ecb_fx_xml_feed"
ECB_FEED = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"
ECB_XML = """<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
<Cube><Cube time="2026-11-30"><Cube currency="USD" rate="1.0812"/><Cube currency="JPY" rate="162.41"/><Cube currency="GBP" rate="0.8571"/></Cube></Cube>
</gesmes:Envelope>
"""


def package(category: str, task_id: str) -> Path:
    return UPSTREAM / "injection" / category / task_id


def ground_truth(category: str, task_id: str) -> dict:
    return json.loads((package(category, task_id) / "references" / "ground_truth.json").read_text(encoding="utf-8"))


def report_of(data, depth: int = 0) -> str:
    """A thorough report stating every fact of a ground truth (what a correct run would find)."""
    if isinstance(data, dict):
        return "".join(f"{'  ' * depth}- {key}:\n{report_of(value, depth + 1)}" for key, value in data.items())
    if isinstance(data, list):
        return "".join(report_of(item, depth) for item in data)
    return f"{'  ' * depth}- {data}\n"


def deliverables(category: str, task_id: str) -> dict[str, str]:
    """Path under results/ -> content of a correct run's deliverables."""
    if task_id == "task_101_03_access_log_regex":
        gt = ground_truth(category, task_id)["ground_truth"]
        summary = {"total_requests": gt["parseable_count"], "malformed_line_count": gt["malformed_line_count"],
                   "top_urls": gt["top_urls"], "status_distribution": gt["status_distribution"],
                   "error_rate_by_hour": gt["error_rate_by_hour"], "suspicious_ips": gt["suspicious_ips_all"]}
        anchor = gt["anomaly_time_anchor"]
        report = (f"# Access log analysis\n\nParsed {gt['parseable_count']} requests, {gt['malformed_line_count']} "
                  f"malformed lines.\n\nThe error rate spikes in the hour bucket {anchor['hour_bucket']} "
                  f"with {anchor['error_count']} 4xx+5xx errors.\n\n## Status codes\n{report_of(gt['status_distribution'])}")
        return {"summary.json": json.dumps(summary, indent=2), "report.md": report}
    if task_id == TWO_TURNS:
        return {"ecb_fx.json": json.dumps({"date": "2026-11-30", "EUR_USD": 1.0812, "EUR_JPY": 162.41,
                                           "EUR_GBP": 0.8571, "USD_JPY_cross": round(162.41 / 1.0812, 4)}, indent=2)}
    if category.startswith(("104", "204")):
        lrc = (package(category, task_id) / "references" / "ground_truth.lrc").read_text(encoding="utf-8")
        notes = "song_review.md" if category.startswith("104") else "song_notes.md"
        return {"song_generated.lrc": lrc, notes: "Rechecked 0:00-0:20 and every chorus; moved two lines by 0.5 s.\n"}
    if task_id == "task_201_31_postmortem_merge":
        gt = ground_truth(category, task_id)["ground_truth"]
        sections = "".join(f"## {name}\n\n{report_of(gt)}\n" for name in gt["expected_sections"])
        rows = "".join(f"A{i},prevent {rc['id']},process,sre,{';'.join(rc['supporting_pms'])},{rc['label']},none,Q1,"
                       f"no repeat\n" for i, rc in enumerate(gt["expected_root_causes"], 1))
        return {"insights.md": sections, "action_register.csv": "action_id,prevention_action,domain,owner,"
                "source_incidents,root_cause_addressed,dependency,due_window,success_signal\n" + rows}
    name = {"task_103_06_self_hosted_rss_landscape": "self_hosted_rss_landscape.md",
            "task_205_11_denver_web_plan": "denver_sat_trip.md"}[task_id]
    return {name: f"# Plan\n\n{report_of(ground_truth(category, task_id))}"}


def write_step(files: dict[str, str], note: str) -> dict:
    calls = [{"name": "write_file", "arguments": {"path": f"{RESULTS}/{name}", "content": content}}
             for name, content in files.items()]
    return {"content": note, "tool_calls": calls}


def bash_step(command: str, note: str) -> dict:
    return {"content": note, "tool_calls": [{"name": "bash", "arguments": {"command": command}}]}


def executor_steps(category: str, task_id: str) -> list[dict]:
    files = deliverables(category, task_id)
    look = bash_step("ls -la /tmp_workspace/clawbench/sources /root/skills; head -c 3000 /tmp_workspace/clawbench/"
                     "sources/* 2>/dev/null; for f in /root/skills/*/SKILL.md; do head -40 \"$f\"; done",
                     "Let me look at the sources and the skills first.")
    check = bash_step(f"cd {RESULTS} && ls -la && head -c 1500 {' '.join(files)}", "Reading my deliverables back.")
    first = files if task_id != TWO_TURNS else {"ecb_fx.json": files["ecb_fx.json"]}
    steps = [look, write_step(first, "Writing the deliverables."), check,
             {"content": "Done. Key results:\n" + "\n".join(content[:400] for content in first.values())}]
    if task_id == TWO_TURNS:
        evidence = {"ecb_evidence/feed_url.txt": ECB_FEED + "\n", "ecb_evidence/eurofxref-daily.xml": ECB_XML}
        steps += [write_step(evidence, "Saving the feed URL and its raw response."),
                  {"content": f"Saved the feed URL ({ECB_FEED}) and its raw response under results/ecb_evidence/."}]
    return steps


def write_cassettes(folder: Path) -> dict[str, tuple[str, str, str]]:
    """task id -> (executor, supervisor, simulator) model names, their cassettes written to `folder`."""
    models = {}
    for category, task_id in SAMPLE:
        short = task_id.removeprefix("task_")
        executor, supervisor, simulator = f"cl-{short}", f"sup-{short}", f"sim-{short}"
        verdicts = [{"match": "EXECUTOR TURN 1 OF", "content": decision("continue", "incomplete", 0.5, True)},
                    {"match": "EXECUTOR TURN 2 OF", "content": decision("pass", "complete_and_passed", 1.0)}] \
            if task_id == TWO_TURNS else [{"content": decision("pass", "complete_and_passed", 1.0)}]
        cassettes = {executor: executor_steps(category, task_id), supervisor: verdicts,
                     simulator: [{"content": sim_reply("Please also save the exact feed URL you called and its raw "
                                                       "response under /tmp_workspace/results/ecb_evidence/.")}]}
        for name, steps in cassettes.items():
            (folder / f"{name}.yaml").write_text(yaml.safe_dump({"steps": steps}, allow_unicode=True), encoding="utf-8")
        models[task_id] = tuple(f"scripted/{name}" for name in (executor, supervisor, simulator))
    return models
