"""Every claw's session backup normalised to the one message + tool-call sequence, on turns
recorded from the real claws (tests/fixtures/transcripts/<claw>/: one closed-loop turn of the
fixture task fx_101_sum on a scripted model: a shell call writing summary.json, then a final
answer; EDICT: turn 1 of the bundled zh_201_invoice_sum on its own cassette; ZeroClaw: our
stand-in of `zeroclaw acp`, the real binary cannot be built here; trimmed of
OpenClaw's runtime events and Hermes' session settings)."""

from __future__ import annotations

import json
import shutil

import pytest

from clawmark.claws.transcripts import read_transcript
from clawmark.results.transcript import TranscriptMessage, from_openai, render
from clawmark.settings import PROJECT_ROOT

RECORDED = PROJECT_ROOT / "tests" / "fixtures" / "transcripts"
TASK_START = "Our regional sales are in /tmp_workspace/clawbench/sources/sales.csv."
WRITE = "> /tmp_workspace/results/summary.json && cat /tmp_workspace/results/summary.json && echo h19-tool-ran"
OUTPUT = '{"total": 790.0, "top_region": "East"}h19-tool-ran'
FINAL = "H19-FINAL: saved summary.json (total 790.0, top region East)."


def _shape(messages: list[TranscriptMessage]) -> list[tuple]:
    return [(m.role, m.tool_name, [c.name for c in m.tool_calls]) for m in messages]


@pytest.mark.parametrize("claw, tool", [("reference", "bash"), ("nanobot", "exec"), ("hermes", "terminal"),
                                        ("openclaw", "exec"), ("zeroclaw", "shell")])
def test_a_recorded_turn_is_user_call_result_answer(claw, tool):
    messages = read_transcript(RECORDED / claw)
    assert _shape(messages) == [("user", None, []), ("assistant", None, [tool]), ("tool", tool, []),
                                ("assistant", None, [])]
    _, call, result, answer = messages
    assert call.text == "Writing the summary." and WRITE in json.loads(call.tool_calls[0].arguments)["command"]
    assert call.tool_calls[0].id == result.tool_call_id == "call_0_0"
    assert OUTPUT in result.text or json.dumps(OUTPUT)[1:-1] in result.text  # Hermes' result is its own JSON
    assert answer.text == FINAL


def test_the_user_message_is_the_task_except_where_openclaw_redacted_it():
    assert read_transcript(RECORDED / "nanobot")[0].text.startswith(TASK_START)
    assert read_transcript(RECORDED / "hermes")[0].text.startswith(TASK_START)
    # OpenClaw's export replaces text holding broken JSON ({"total": <number...}) by a marker.
    assert read_transcript(RECORDED / "openclaw")[0].text == "[Malformed diagnostic JSON redacted]"


def test_the_reference_claw_drops_its_system_prompt_and_names_the_tool_of_each_result():
    raw = json.loads((RECORDED / "reference" / "reference-messages.json").read_text())
    assert raw[0]["role"] == "system" and "name" not in raw[3]
    assert read_transcript(RECORDED / "reference")[2].tool_name == "bash"  # from the call it answers


def test_mini_swe_agent_keeps_its_submit_call_and_drops_the_exit_record():
    messages = read_transcript(RECORDED / "mini-swe-agent")
    assert _shape(messages) == [("user", None, []), ("assistant", None, ["bash"]), ("tool", "bash", []),
                                ("assistant", None, ["bash"]), ("tool", "bash", [])]
    assert messages[0].text.startswith("Please solve this issue: " + TASK_START)
    assert OUTPUT.replace('"', '\\"') in messages[2].text  # mini's result is its own JSON of the output
    assert messages[3].text == FINAL and "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in messages[3].tool_calls[0].arguments


def test_genericagent_rounds_become_one_assistant_message_per_model_call():
    messages = read_transcript(RECORDED / "genericagent")
    assert _shape(messages) == [("user", None, []), ("assistant", None, ["code_run"]), ("assistant", None, [])]
    assert messages[0].text.startswith(TASK_START)
    assert messages[1].text.startswith("Writing the summary.\n```bash\n") and WRITE in messages[1].text
    assert json.loads(messages[1].tool_calls[0].arguments) == {"cwd": "/tmp_workspace", "type": "bash"}
    assert messages[2].text == FINAL  # GenericAgent's memory/ folder is not read as conversation


def test_hermes_reads_its_export_not_the_adapter_copy_of_it(tmp_path):
    shutil.copytree(RECORDED / "hermes", tmp_path / "hermes")
    (tmp_path / "hermes" / "hermes-messages.json").write_text(json.dumps({"messages": [
        {"role": "assistant", "content": "copy"}]}))
    assert "copy" not in render(read_transcript(tmp_path / "hermes"))


def test_the_judge_text_of_an_openclaw_turn_holds_the_call_and_no_event_json():
    lines = render(read_transcript(RECORDED / "openclaw")).splitlines()
    assert lines[1:3] == ["[assistant] Writing the summary.", '  -> tool call exec({"command": "mkdir -p '
                          '/tmp_workspace/results && printf \'{\\"total\\": 790.0, \\"top_region\\": \\"East\\"}\' '
                          + WRITE + '"})']
    assert lines[3:] == [f"[tool exec] {OUTPUT}", f"[assistant] {FINAL}"]
    assert not any("traceSchema" in line or "toolResult" in line for line in lines)


def test_edict_roles_merge_in_time_order_each_named_and_the_board_is_not_a_message():
    messages = read_transcript(RECORDED / "edict")
    turns = [(m.agent, m.role) for m in messages]
    speakers = [agent for i, (agent, _role) in enumerate(turns) if i == 0 or turns[i - 1][0] != agent]
    assert speakers == ["taizi", "zhongshu", "shangshu", "taizi"]  # front desk, planner, executor, report
    assert turns[:7] == [("taizi", "user"), ("taizi", "assistant"), ("taizi", "tool"), ("taizi", "assistant"),
                         ("taizi", "tool"), ("taizi", "assistant"), ("zhongshu", "user")]
    assert messages[0].text.startswith("财务同事把本月收到的发票扫描成文本")
    created = messages[3].tool_calls[0]
    assert created.name == "exec" and "kanban_update.py create JJC-1" in json.loads(created.arguments)["command"]
    assert messages[4].text == "JJC-1: created in Zhongshu" and messages[4].tool_call_id == created.id
    assert "[shangshu: tool exec] invoices-written 4996.00" in render(messages).splitlines()
    assert messages[-1].agent == "taizi" and messages[-1].text.startswith("Report: every invoice read")
    assert not any("flow_log" in m.text for m in messages)  # edict-kanban.json: the board, not a message


def test_hostile_session_files_are_skipped_not_fatal(tmp_path):
    bundle = tmp_path / "openclaw-trajectory-main"
    bundle.mkdir()
    good = {"source": "transcript", "type": "assistant.message", "ts": "1",
            "data": {"message": {"role": "assistant", "content": [{"type": "toolCall", "name": 7, "id": []},
                                                                  {"type": "text", "text": "ok"}]}}}
    bundle.joinpath("events.jsonl").write_text("\n".join([
        "{not json", "[1, 2]", json.dumps({"source": "transcript", "type": "user.message", "data": "x"}),
        json.dumps({"source": "runtime", "type": "assistant.message", "data": good["data"]}), json.dumps(good)]))
    (tmp_path / "outside.txt").write_text("host file")
    (tmp_path / "link.txt").symlink_to(tmp_path / "outside.txt")
    (tmp_path / "export.error.log").write_text("exit 1")
    messages = read_transcript(tmp_path)
    assert [(m.role, m.text, [c.name for c in m.tool_calls]) for m in messages[:1]] == [("assistant", "ok", ["?"])]
    assert [m.text for m in messages[1:]] == ["[outside.txt]\nhost file"]  # the symlink and the error log: not read


def test_openai_messages_with_odd_fields_still_normalise():
    messages = from_openai([{"role": "system", "content": "s"}, "junk",
                            {"role": "assistant", "content": [{"type": "image_url"}], "tool_calls": [
                                {"id": 3, "function": {"name": "bash", "arguments": {"command": "ls"}}}]},
                            {"role": "tool", "tool_call_id": 3, "content": None},
                            {"role": "assistant", "content": "x", "tool_calls": 5},
                            {"role": "assistant", "tool_calls": [{"function": "rm -rf /", "name": ["y"]}]}])
    assert render(messages) == ('[assistant] [image]\n  -> tool call bash({"command": "ls"})\n[tool]\n[assistant] x\n'
                                '[assistant]\n  -> tool call ?()')


def test_openclaw_2026_3_session_files_read_like_its_exports():
    """OpenClaw 2026.3.11 (ucb-paper) keeps JSONL sessions, saved as they were (a kit patch turn
    recorded from the pinned image): its bookkeeping lines (session, model change...) are left out."""
    messages = read_transcript(RECORDED / "openclaw-2026.3.11")
    assert _shape(messages) == [("user", None, []), ("assistant", None, ["exec"]), ("tool", "exec", []),
                                ("assistant", None, [])]
    assert "Password containing '#'" in messages[0].text and "kit-fix-applied" in messages[2].text
    assert messages[1].tool_calls[0].id == messages[2].tool_call_id and messages[0].agent is None
