"""The shape of JSON as `json.loads` returns it and `json.dumps` takes it (ground floor).

A function that parses or builds JSON says so with these names instead of `Any`; one that takes a
value of unknown shape and narrows it with `isinstance` takes `object`.
"""

from __future__ import annotations

JsonScalar = str | int | float | bool | None
JsonValue = JsonScalar | list["JsonValue"] | dict[str, "JsonValue"]
JsonObject = dict[str, JsonValue]
