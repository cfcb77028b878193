"""What the audit counts as a leak of hidden material, on a real upstream task: a rubric line in
what the executor saw (a tool's output, a follow-up) is one; the public task id the rubric names,
text of the task's sources or skills, and what the executor wrote itself are not; a follow-up is
excused only by work done before it."""

from __future__ import annotations

import json

from clawmark.audit.hidden import closed_loop_material, hidden_in, with_references
from clawmark.audit.produced import attempt_reference_files, own_work, produced_files, split_text
from clawmark.catalog import load_task
from tests.support.paths import UCB_SAMPLE

UPSTREAM = UCB_SAMPLE
TASK = UPSTREAM / "tasks" / "101_skill_usage" / "task_101_03_access_log_regex.yaml"
RUBRIC_LINE = "Numeric tolerances are tight on purpose: a near-right answer that misses the calibrated bands"


def transcript(*messages: dict) -> bytes:
    return json.dumps(list(messages)).encode()


def test_a_transcript_splits_into_what_the_executor_wrote_and_what_it_saw():
    args = json.dumps({"path": "/tmp_workspace/results/report.md", "content": "peak hour 01/Jul/1995 04"})
    text = split_text("cycles/0/transcript/reference-messages.json", transcript(
        {"role": "user", "content": "the task"},
        {"role": "assistant", "content": "writing", "tool_calls": [{"function": {"name": "write_file", "arguments": args}}]},
        {"role": "tool", "content": "wrote 24 characters"}))
    assert "peak hour 01/Jul/1995 04" in text.written and "writing" in text.written
    assert "the task" in text.seen and "wrote 24 characters" in text.seen and "peak hour" not in text.seen
    assert split_text("artifacts/report.md", b"anything").written == "anything"
    assert split_text("cycles/1/feedback.txt", b"a follow-up").seen == "a follow-up"
    assert split_text("logs/x.bin", b"\x00\x01\xff\xfe") is None


def test_only_the_executors_and_simulators_files_are_read():
    names = ["config.json", "ledger.jsonl", "cycles/0/decision.json", "cycles/0/checks.json", "logs/pre_exec/a.log",
             "package/t/references/eval_rule.md", "cycles/0/feedback.txt", "cycles/0/results/a.md", "logs/taskenv.json"]
    assert produced_files(names) == ["cycles/0/feedback.txt", "cycles/0/results/a.md", "logs/taskenv.json"]


def test_the_public_task_id_and_the_executors_own_answer_are_not_leaks():
    task = load_task(TASK)
    material = closed_loop_material(task)
    assert task.task_id in task.eval_rule_file.read_text(encoding="utf-8").splitlines()[0]  # the rubric's title
    logged = json.dumps({"task_id": task.task_id, "image": "clawmark/workstation"})  # logs/taskenv.json
    assert hidden_in(f"{logged}\nRunning {task.task_id} now.", material, "") == []
    answer = "parseable_count (= 70949) malformed_line_count (= 51) peak_error_hour (= \"01/Jul/1995 04\")"
    assert hidden_in(answer, material, "") != []  # stated out of nowhere in a tool's output: hidden data
    assert hidden_in(answer, material, own_work=answer) == []  # the executor's own result, read back
    assert hidden_in(answer, material, "", written=True) == []  # what it wrote itself


def test_a_rubric_line_the_executor_saw_is_a_leak():
    material = closed_loop_material(load_task(TASK))
    [(kind, evidence)] = hidden_in(f"$ cat notes.txt\n{RUBRIC_LINE}\n", material, "")
    assert kind == "rubric" and evidence.startswith("numeric tolerances are tight on purpose")


def test_a_follow_up_is_excused_only_by_work_done_before_it():
    texts = [split_text("cycles/0/results/a.md", b"turn one"), split_text("cycles/1/results/a.md", RUBRIC_LINE.encode()),
             split_text("cycles/0/feedback.txt", RUBRIC_LINE.encode()), split_text("artifacts/a.md", RUBRIC_LINE.encode())]
    feedback = texts[2]
    assert feedback.follow_up and feedback.cycle == 0
    before = own_work(texts, feedback.cycle)
    assert before == "turn one"  # not the later turn's copy, nor the final artifacts
    material = closed_loop_material(load_task(TASK))
    assert hidden_in(feedback.seen, material, before) != []
    assert hidden_in(feedback.seen, material, own_work(texts)) == []  # what a copied leak would hide


def test_references_an_attempts_pre_exec_regenerated_are_hidden_material_of_that_cell():
    material = closed_loop_material(load_task(TASK))
    regenerated = "the regenerated snapshot holds page live-5c2f owned by Priya Raman since the beta retro"
    assert attempt_reference_files(["package/x/references/ground_truth.json", "package/package.json",
                                    "artifacts/references/a.md"]) == ["package/x/references/ground_truth.json"]
    assert hidden_in(regenerated, material, "") == []
    extended = with_references(material, [("ground_truth.json", regenerated)])
    [(kind, _)] = hidden_in(regenerated, extended, "")
    assert kind == "attempt reference ground_truth.json"
