"""`closed_loop.cache_setup` in a sweep file: it lands in the attempt config, is refused when given
twice with two values, and is no part of what a sweep pins or keys (a resume may flip it)."""

from __future__ import annotations

import pytest
import yaml

from clawmark.catalog import CatalogError
from clawmark.results import ResultStore
from clawmark.sweeps import load_spec
from clawmark.sweeps.plan import pin_protocol

BASE = {"sweep_id": "cached", "instances": None, "claws": ["reference"], "models": ["scripted/x"]}


def _spec(tmp_path, closed_loop: dict, name: str):
    path = tmp_path / name
    path.write_text(yaml.safe_dump({**BASE, "closed_loop": {"tasks": ["en_101_sales_total"], **closed_loop}}))
    return load_spec(path)


def test_cache_setup_lands_in_the_attempt_and_is_given_once(tmp_path):
    assert _spec(tmp_path, {}, "d.yaml").closed_loop.attempt.cache_setup is True
    assert _spec(tmp_path, {"cache_setup": False}, "off.yaml").closed_loop.attempt.cache_setup is False
    assert _spec(tmp_path, {"attempt": {"cache_setup": False}}, "n.yaml").closed_loop.attempt.cache_setup is False
    with pytest.raises(CatalogError, match="give cache_setup once"):
        _spec(tmp_path, {"cache_setup": True, "attempt": {"cache_setup": False}}, "twice.yaml")
    with pytest.raises(CatalogError, match="give the judge once"):
        _spec(tmp_path, {"judge": "agent", "attempt": {"judge": "prompt"}}, "judge.yaml")


def test_turning_the_cache_off_is_no_protocol_change(tmp_path):
    store = ResultStore(tmp_path / "results")
    on = pin_protocol(_spec(tmp_path, {}, "on.yaml"), store)
    for closed_loop in ({"cache_setup": False}, {"attempt": {"cache_setup": False}}):
        assert pin_protocol(_spec(tmp_path, closed_loop, "off.yaml"), store) == on  # a resume is not refused
