"""Cassette format and the stateless step choice; the blocking client on a scripted model."""

from __future__ import annotations

import os

import pytest

from clawmark.gateway.cassettes import Cassette, CassetteError, find_cassette, get_cassette, load_cassette
from clawmark.gateway.client import complete
from clawmark.gateway.ledger import Ledger, read_ledger

SCRIPT = Cassette.model_validate({"name": "t", "steps": [
    {"content": "first"},
    {"match": "error", "content": "fixing the error"},
    {"content": "second"},
    {"match": "ok", "turn": 2, "content": "ok at turn two"},
]})


def msgs(*roles_texts: tuple[str, str]) -> list[dict]:
    return [{"role": r, "content": t} for r, t in roles_texts]


def test_script_steps_follow_the_assistant_count():
    assert SCRIPT.choose(msgs(("user", "go")))[1].content == "first"
    assert SCRIPT.choose(msgs(("user", "go"), ("assistant", "a"), ("tool", "done")))[1].content == "second"


def test_triggers_win_and_turn_narrows_them():
    assert SCRIPT.choose(msgs(("user", "an error happened")))[1].content == "fixing the error"
    two = msgs(("user", "go"), ("assistant", "a"), ("user", "b"), ("assistant", "c"), ("tool", "ok"))
    assert SCRIPT.choose(two)[1].content == "ok at turn two"
    three = msgs(("user", "x"), ("assistant", "a"), ("assistant", "b"), ("assistant", "c"), ("user", "y"))
    with pytest.raises(CassetteError, match="no step for a request with 3 assistant messages"):
        SCRIPT.choose(three)


def test_list_content_parts_are_matched():
    parts = [{"role": "user", "content": [{"type": "text", "text": "there is an error"}]}]
    assert SCRIPT.choose(parts)[1].content == "fixing the error"


def test_a_message_of_nothing_but_openclaws_runtime_context_is_read_past():
    block = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nruntime facts\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>"
    after_tool = msgs(("user", "go"), ("assistant", "a"), ("tool", "an error"), ("user", block))
    assert SCRIPT.choose(after_tool)[1].content == "fixing the error"
    carrying_a_prompt = msgs(("user", "go"), ("assistant", "a"), ("tool", "an error"), ("user", block + "\nok"))
    assert SCRIPT.choose(carrying_a_prompt)[1].content == "second"  # the user's words in it: it counts


def test_bad_cassette_names_file_and_field(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("steps:\n  - content: hi\n    usage: {prompt: many}\n")
    with pytest.raises(CassetteError) as err:
        load_cassette(path)
    assert str(err.value).startswith(f"{path}: field 'steps.0.usage.prompt'")


def test_cassettes_dir_from_env_is_searched_first(tmp_path, monkeypatch):
    (tmp_path / "demo.yaml").write_text("steps:\n  - content: mine\n")
    monkeypatch.setenv("CLAWMARK_CASSETTES", str(tmp_path))
    assert find_cassette("demo") == tmp_path / "demo.yaml"
    with pytest.raises(CassetteError, match="expected letters"):
        find_cassette("../etc/passwd")


def test_a_cassette_is_read_again_when_it_changes_moves_or_goes(tmp_path, monkeypatch):
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir(), second.mkdir()
    monkeypatch.setenv("CLAWMARK_CASSETTES", f"{first}:{second}")
    (second / "who.yaml").write_text("steps:\n  - content: second\n")
    mine = first / "who.yaml"
    mine.write_text("steps:\n  - content: first\n")
    assert get_cassette("who").steps[0].content == "first"  # remembered where it was found
    mine.write_text("steps:\n  - content: first, edited\n")
    os.utime(mine, (1, 1))  # a new mtime however coarse the filesystem's clock
    assert get_cassette("who").steps[0].content == "first, edited"
    mine.unlink()
    assert get_cassette("who").steps[0].content == "second"  # not the remembered file
    (second / "who.yaml").unlink()
    with pytest.raises(CassetteError, match="no cassette 'who'"):
        get_cassette("who")


def test_blocking_complete_on_a_scripted_model(tmp_path):
    ledger = Ledger(tmp_path / "ledger.jsonl")
    result = complete(role="supervisor", attempt_id="s1", model="scripted/gateway-test",
                      messages=[{"role": "user", "content": "ping"}], ledger=ledger)
    assert result.response["choices"][0]["message"]["content"] == "pong"
    [record] = read_ledger(ledger.path)
    assert (record.role, record.input_tokens, record.output_tokens) == ("supervisor", 10, 1)
    assert record.cost_usd == pytest.approx((10 * 3.0 + 1 * 15.0) / 1e6)


def test_every_bundled_cassette_loads():
    from clawmark.settings import TASKS_CATALOG

    paths = sorted((TASKS_CATALOG / "cassettes").glob("*.yaml"))
    assert len(paths) >= 3
    for path in paths:
        assert load_cassette(path).steps, path
