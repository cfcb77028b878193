"""The gateway's JSON (orjson) reads and writes what the standard library did: the same values,
the same ValueError on what is not JSON, and what orjson refuses handed to the standard library."""

from __future__ import annotations

import json
import math

import pytest

from clawmark.gateway import wire_json

BODY = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "héllo \u2603 \"q\"\n"}],
        "temperature": 0.25, "tools": [{"type": "function", "function": {"name": "bash", "parameters": {}}}]}


def test_a_request_body_round_trips_to_the_same_value():
    assert json.loads(wire_json.dumps(BODY)) == BODY
    assert wire_json.loads(json.dumps(BODY).encode()) == BODY
    assert wire_json.loads(bytearray(json.dumps(BODY).encode())) == BODY


def test_what_orjson_refuses_the_standard_library_takes():
    assert json.loads(wire_json.dumps({"seed": 2**70})) == {"seed": 2**70}  # past 64 bits
    assert wire_json.dumps({1: "a"}) == b'{"1":"a"}'  # a non-str key, as json.dumps writes it
    assert math.isnan(wire_json.loads(b'{"x": NaN}')["x"])


def test_what_is_not_json_is_a_value_error_with_the_standard_librarys_message():
    with pytest.raises(ValueError, match="Expecting property name"):
        wire_json.loads(b"{not json")
