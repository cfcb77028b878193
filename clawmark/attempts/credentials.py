"""The one credential rule of every attempt config and sweep field that can carry model
parameters or claw settings: no keys there, on either track.

Keys never enter a cell key, config.json or the pinned sweep config: they live in the gateway
process's environment (e.g. OPENAI_API_KEY), which litellm reads, or in a model-endpoint block.
A field typed `NoCredentials` refuses a key-looking name (any depth, `-` read as `_`) or a
key-looking value with the pydantic error type `CREDENTIAL_ERROR`, which formatters (sweeps.spec)
turn into a message naming the file and the field, never echoing the value.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator
from pydantic_core import PydanticCustomError

SECRET_NAME = re.compile(r"api_?key|access_?key|secret|password|passwd|credential|authorization|bearer"
                         r"|(^|_)token($|_)")
SECRET_VALUE = re.compile(r"^(sk|rk|pk)-[A-Za-z0-9_-]{16,}$|^Bearer\s")
CREDENTIAL_ERROR = "credential_in_config"  # pydantic error type: formatters must not echo the input


def refuse_credentials(value: dict[str, Any]) -> dict[str, Any]:
    if found := sorted(set(_credential_paths(value))):
        raise PydanticCustomError(CREDENTIAL_ERROR, f"no credentials ({', '.join(found)} looks like one): give keys "
                                  "to the gateway through its environment (e.g. OPENAI_API_KEY), never to a sweep "
                                  "or attempt")
    return value


# Model parameters or claw settings of any attempt config (the models using it must also set
# hide_input_in_errors, so a refused value is never echoed by pydantic's own message).
NoCredentials = Annotated[dict[str, Any], AfterValidator(refuse_credentials)]


def _credential_paths(value: object, path: str = "") -> list[str]:
    if isinstance(value, dict):
        return [hit for key, item in value.items()
                for hit in ([f"{path}{key}"] if SECRET_NAME.search(str(key).lower().replace("-", "_")) else [])
                + _credential_paths(item, f"{path}{key}.")]
    if isinstance(value, list):
        return [hit for i, item in enumerate(value) for hit in _credential_paths(item, f"{path}{i}.")]
    return [path.rstrip(".") or "<value>"] if isinstance(value, str) and SECRET_VALUE.search(value) else []
