"""Model gateway: every model call goes through `client.complete` (litellm underneath), is priced
and written to the attempt's usage ledger; `server.GatewayServer` exposes the same path over
OpenAI-compatible HTTP for claws in containers; `scripted/<cassette>` models replay cassettes."""

from __future__ import annotations

import os

# Before anything imports litellm: use the bundled price map, never download one.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
