"""cell_key must be stable across processes/dict order and change when any identity field does
(a collision would make a resume skip a cell that never ran)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from clawmark.results import cell_key, config_hash
from clawmark.results.identity import UnhashableConfig

BASE = dict(
    track="patch", task_id="django__django-11099", task_hash="abc", claw="openclaw", claw_version="2.1",
    claw_settings={"max_steps": 50, "tools": ["bash", "edit"]}, model="openai/gpt-5", model_params={"temperature": 0.0},
    seed=0, protocol_version="1",
)
CHANGED = dict(
    track="closed_loop", task_id="other", task_hash="abd", claw="nanobot", claw_version="2.2",
    claw_settings={"max_steps": 51, "tools": ["bash", "edit"]}, model="openai/gpt-5-mini",
    model_params={"temperature": 0.1}, seed=1, protocol_version="2",
)


def test_key_is_short_hex_and_deterministic():
    key = cell_key(**BASE)
    assert len(key) == 16 and int(key, 16) >= 0
    assert cell_key(**BASE) == key


def test_key_ignores_dict_order():
    reordered = dict(BASE, claw_settings={"tools": ["bash", "edit"], "max_steps": 50})
    assert cell_key(**reordered) == cell_key(**BASE)


@pytest.mark.parametrize("field", sorted(CHANGED))
def test_changing_any_identity_field_changes_the_key(field):
    assert cell_key(**dict(BASE, **{field: CHANGED[field]})) != cell_key(**BASE)


def test_key_is_the_same_in_another_process():
    code = f"from clawmark.results import cell_key; print(cell_key(**{BASE!r}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env={"PYTHONHASHSEED": "123"})
    assert out.stdout.strip() == cell_key(**BASE)


def test_config_hash_pins_a_known_value():
    # Pinned so a refactor of the canonical form cannot silently re-key every stored cell.
    assert config_hash({"b": 1, "a": [1, 2]}) == config_hash({"a": [1, 2], "b": 1})
    assert config_hash({}) == "44136fa355b3678a"


def test_config_hash_tells_nan_from_null_and_sets_are_ordered():
    assert config_hash({"x": float("nan")}) != config_hash({"x": None})
    assert config_hash({"s": {3, 1, 2}}) == config_hash({"s": {2, 3, 1}})


def test_config_hash_refuses_unhashable_values():
    with pytest.raises(UnhashableConfig):
        config_hash({"fn": print})
