"""A model a sweep may call, with the provider key kept in the Prefect server as a secret."""

from __future__ import annotations

import os

from prefect.blocks.core import Block
from pydantic import Field, SecretStr, model_validator


class ModelEndpoint(Block):
    """A litellm model string plus the environment variable its provider key travels in.

    The gateway (litellm) reads provider keys from the environment, so `export_key()` puts the
    secret there for this process only; it never reaches a container, a prompt or a result row.
    """

    _block_type_name = "clawmark model endpoint"

    model: str = Field(description="litellm model string, e.g. anthropic/claude-sonnet-4-6 or scripted/demo.")
    api_key_env: str | None = Field(None, description="Env var the provider key belongs in, e.g. OPENAI_API_KEY.")
    api_key: SecretStr | None = Field(None, description="The provider key (stored encrypted by Prefect).")
    api_base: str | None = Field(None, description="OpenAI-compatible base URL of `openai/<name>` models "
                                 "(self-hosted; litellm reads it from OPENAI_API_BASE).")

    @model_validator(mode="after")
    def _key_has_a_place(self) -> "ModelEndpoint":
        if self.api_key is not None and not self.api_key_env:
            raise ValueError("api_key_env: the environment variable the key belongs in is required with api_key")
        return self

    def export_key(self) -> None:
        """The block's values win over whatever the worker's environment had."""
        if self.api_key is not None and self.api_key_env:
            os.environ[self.api_key_env] = self.api_key.get_secret_value()
        if self.api_base:
            os.environ["OPENAI_API_BASE"] = self.api_base
