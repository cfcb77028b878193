"""`python -m blocks`: register clawmark's block types on the server PREFECT_API_URL names and
save the embedded set-up's blocks from blocks/defaults.yaml (existing blocks are left as they are)."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml
from prefect.exceptions import ObjectNotFound

from blocks import DockerHost, ModelEndpoint, ResultStoreBlock
from clawmark.settings import settings

DEFAULTS = Path(__file__).with_name("defaults.yaml")
KINDS = {"result_store": ResultStoreBlock, "docker_host": DockerHost, "model_endpoint": ModelEndpoint}


def _resolved(kind: str, values: dict) -> dict:
    """A relative store root lives under CLAWMARK_HOME, where `clawmark sweep status` looks."""
    if kind == "result_store" and not Path(values["root"]).is_absolute() and "://" not in values["root"]:
        return {**values, "root": str(settings().home / values["root"])}
    return values


def save_defaults(path: Path = DEFAULTS) -> list[str]:
    """Save every block of the file that the server does not have yet; return what was saved."""
    saved = []
    for kind, blocks in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).items():
        block_type = KINDS[kind]
        block_type.register_type_and_schema()
        for name, values in (blocks or {}).items():
            try:
                block_type.load(name)
            except (ValueError, ObjectNotFound):
                block_type(**_resolved(kind, values)).save(name)
                saved.append(f"{block_type._block_type_name}/{name}")
    return saved


if __name__ == "__main__":
    for kind in KINDS.values():
        kind.register_type_and_schema()
    done = save_defaults(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULTS)
    print(f"block types registered; saved {', '.join(done) or 'nothing new'}")
