"""`clawmark doctor` reports the Prefect home and API that Prefect itself will use."""

from __future__ import annotations

import os
import subprocess
import sys

PROBE = "from clawmark.cli.doctor import _prefect_check as c; r = c(); print(r.ok, r.detail)"


def _probe(env: dict[str, str]) -> str:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    done = subprocess.run([sys.executable, "-c", PROBE], env={**clean, **env}, capture_output=True, text=True,
                          check=True, timeout=120)
    return done.stdout


def test_the_home_and_api_come_from_prefects_settings(tmp_path):
    home = tmp_path / "prefect-home"
    out = _probe({"PREFECT_HOME": str(home), "PREFECT_API_URL": "http://127.0.0.1:4299/api"})
    assert out.startswith("True") and str(home) in out and "http://127.0.0.1:4299/api" in out


def test_an_api_set_in_the_active_profile_is_reported(tmp_path):
    home = tmp_path / "prefect-home"
    home.mkdir()
    (home / "profiles.toml").write_text('active = "team"\n[profiles.team]\n'
                                        'PREFECT_API_URL = "http://127.0.0.1:4300/api"\n')
    out = _probe({"PREFECT_HOME": str(home), "PREFECT_PROFILES_PATH": str(home / "profiles.toml")})
    assert "http://127.0.0.1:4300/api" in out
