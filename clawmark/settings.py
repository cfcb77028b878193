"""Process-wide settings read from the environment (CLAWMARK_*), one pydantic model."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, Field

PROJECT_ROOT = Path(__file__).resolve().parent.parent
TASKS_CATALOG = PROJECT_ROOT / "tasks_catalog"
IMAGES_DIR = PROJECT_ROOT / "images"


class Settings(BaseModel):
    """Where clawmark keeps state and how the pieces find each other."""

    home: Path = Field(description="State root: runs, ledgers, caches (CLAWMARK_HOME).")
    results_dir: Path = Field(description="Parquet rows and artifact folders (CLAWMARK_RESULTS).")
    gateway_host: str = Field(description="Address the gateway binds on (CLAWMARK_GATEWAY_HOST; loopback by "
                                          "default, the pipeline adds the containers' network address).")
    gateway_port: int = Field(description="Port of the gateway; 0 = pick a free one (CLAWMARK_GATEWAY_PORT).")
    prices_file: Path | None = Field(description="YAML of user price overrides (CLAWMARK_PRICES).")
    catalog_dir: Path = Field(description="Bundled or user task catalog root (CLAWMARK_CATALOG).")

    @classmethod
    def from_env(cls) -> "Settings":
        home = Path(os.environ.get("CLAWMARK_HOME", PROJECT_ROOT / ".clawmark")).expanduser()
        prices = os.environ.get("CLAWMARK_PRICES")
        return cls(
            home=home,
            results_dir=Path(os.environ.get("CLAWMARK_RESULTS", home / "results")).expanduser(),
            gateway_host=os.environ.get("CLAWMARK_GATEWAY_HOST", "127.0.0.1"),
            gateway_port=int(os.environ.get("CLAWMARK_GATEWAY_PORT", "0")),
            prices_file=Path(prices).expanduser() if prices else None,
            catalog_dir=Path(os.environ.get("CLAWMARK_CATALOG", TASKS_CATALOG)).expanduser(),
        )


@lru_cache(maxsize=1)
def settings() -> Settings:
    return Settings.from_env()
