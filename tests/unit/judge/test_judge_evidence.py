"""Evidence of one executor turn: head + tail transcript with the cut marked, bounded file texts,
images as data-URL image parts, binaries listed only."""

from __future__ import annotations

import base64

from clawmark.judge.evidence import Evidence, EvidenceLimits, head_tail, render_transcript
from clawmark.judge.fence import Fence
from tests.support.judge_tasks import write_results

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def test_head_tail_marks_the_cut_with_the_dropped_count():
    assert head_tail("abcdef", 3, 3) == ("abcdef", False)
    text, cut = head_tail("a" * 10 + "MIDDLE" + "z" * 10, 10, 10)
    assert cut and text.startswith("a" * 10) and text.endswith("z" * 10)
    assert "[... clawmark: 6 characters of the transcript cut here ...]" in text and "MIDDLE" not in text


def test_transcript_renders_roles_tool_calls_and_image_parts():
    messages = [{"role": "user", "content": [{"type": "text", "text": "look at "}, {"type": "image_url", "image_url": {}}]},
                {"role": "assistant", "content": None,
                 "tool_calls": [{"function": {"name": "bash", "arguments": '{"command": "ls"}'}}]},
                {"role": "tool", "content": "summary.json"}]
    assert render_transcript(messages) == (
        '[user] look at [image]\n[assistant]\n  -> tool call bash({"command": "ls"})\n[tool] summary.json')


def test_results_folder_texts_images_and_binaries(tmp_path):
    results = write_results(tmp_path / "results", {
        "summary.json": '{"total": 790}', "notes/long.md": "x" * 50, "chart.png": PNG, "blob.bin": b"\0\1\2"})
    long_turn = [{"role": "assistant", "content": "step " * 100}]
    evidence = Evidence.from_attempt(long_turn, results, EvidenceLimits(
        transcript_head_chars=20, transcript_tail_chars=20, file_chars=30))
    assert evidence.transcript_cut and evidence.transcript_chars == len(("[assistant] " + "step " * 100).rstrip())
    by_path = {f.path: f for f in evidence.files}
    assert sorted(by_path) == ["blob.bin", "chart.png", "notes/long.md", "summary.json"]
    assert (by_path["blob.bin"].kind, by_path["blob.bin"].text) == ("binary", None)
    assert by_path["summary.json"].text == '{"total": 790}'
    assert by_path["notes/long.md"].truncated and by_path["notes/long.md"].text.startswith("x" * 30 + "\n[...")
    [image] = evidence.images
    assert image.data_url == "data:image/png;base64," + base64.b64encode(PNG).decode()
    fence = Fence.new()
    parts = evidence.image_parts(fence)
    assert parts[2] == {"type": "image_url", "image_url": {"url": image.data_url}}
    assert fence.open("images") in parts[0]["text"] and parts[1]["text"] == (
        '│ Image, file "chart.png" in /tmp_workspace/results/:')
    text = evidence.render_text(fence)
    assert "│ - chart.png (" in text and "│ path: summary.json\n│ {\"total\": 790}" in text and "cut: " in text


def test_total_text_budget_and_file_count_are_bounded(tmp_path):
    results = write_results(tmp_path / "r", {f"f{i}.txt": "y" * 40 for i in range(5)})
    evidence = Evidence.from_attempt([], results, EvidenceLimits(total_file_chars=100, file_chars=40, max_files=4))
    shown = [len(f.text or "") for f in evidence.files]
    assert shown[:2] == [40, 40] and evidence.files[3].text is None and evidence.files_not_listed == 1
    assert sum(len(f.text.split("\n")[0]) for f in evidence.files if f.text) == 100


def test_missing_results_folder_is_empty_evidence(tmp_path):
    evidence = Evidence.from_attempt([], tmp_path / "absent")
    assert (evidence.files, evidence.images, evidence.transcript) == ([], [], "")
    assert "│ (empty)" in evidence.render_text(Fence.new()) and evidence.image_parts(Fence.new()) == []


def test_links_in_the_results_folder_are_not_followed(tmp_path):
    outside = write_results(tmp_path / "host", {"private.txt": "host secret"})
    results = write_results(tmp_path / "results", {"ok.txt": "fine"})
    (results / "dir_link").symlink_to(outside, target_is_directory=True)
    (results / "file_link.txt").symlink_to(outside / "private.txt")
    evidence = Evidence.from_attempt([], results)
    assert [f.path for f in evidence.files] == ["ok.txt"] and "host secret" not in evidence.raw_text()
