"""Make a task container trust the web proxy's CA, in every store its clients read.

System bundle (`update-ca-certificates`: curl, wget, apt, OpenSSL users), and the variables
that point Python (requests, ssl, pip) and Node at that bundle; Chromium's NSS database of the
executor user when `certutil` is present (the desktop image has it). The variables go in the
container's environment at creation (`trust_env`); the files are written after it starts.
"""

from __future__ import annotations

from pathlib import Path

from clawmark.webproxy.errors import WebProxyError

SYSTEM_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
CA_NAME = "clawmark-webproxy"
CA_PATH = f"/usr/local/share/ca-certificates/{CA_NAME}.crt"
TRUST_VARS = ("REQUESTS_CA_BUNDLE", "SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "PIP_CERT", "CURL_CA_BUNDLE")

SYSTEM_SCRIPT = f"""set -e
chown 0:0 {CA_PATH}; chmod 0644 {CA_PATH}
if command -v update-ca-certificates >/dev/null; then update-ca-certificates >/dev/null 2>&1
else cat {CA_PATH} >> {SYSTEM_BUNDLE}; fi
grep -q "$(sed -n 2p {CA_PATH})" {SYSTEM_BUNDLE}
"""
# As the executor: its own NSS db (Chromium reads ~/.pki/nssdb), only when certutil exists.
NSS_SCRIPT = f"""set -e
command -v certutil >/dev/null || exit 0
db="$HOME/.pki/nssdb"; mkdir -p "$db"
[ -f "$db/cert9.db" ] || certutil -d "sql:$db" -N --empty-password
certutil -d "sql:$db" -D -n {CA_NAME} >/dev/null 2>&1 || true
certutil -d "sql:$db" -A -t "C,," -n {CA_NAME} -i {CA_PATH}
echo nss
"""


def trust_env() -> dict[str, str]:
    return {name: SYSTEM_BUNDLE for name in TRUST_VARS}


def install_trust(sandbox, ca_pem: Path, executor_user: str) -> list[str]:
    """Install the CA; returns the stores it went into (`system`, and `nss` when Chromium's is)."""
    sandbox.write_file(CA_PATH, Path(ca_pem).read_bytes(), mode=0o644)
    _run(sandbox, SYSTEM_SCRIPT, "0", "the system CA bundle")
    home = _home_of(sandbox, executor_user)
    nss = _run(sandbox, NSS_SCRIPT, executor_user, "Chromium's NSS db", env={"HOME": home})
    return ["system"] + (["nss"] if "nss" in nss else [])


def _home_of(sandbox, user: str) -> str:
    uid = user.split(":")[0]
    out = sandbox.exec(["getent", "passwd", uid], timeout_s=30, user="0", workdir="/").stdout
    fields = out.strip().split(":")
    return fields[5] if len(fields) > 5 and fields[5] else "/tmp"


def _run(sandbox, script: str, user: str, what: str, env: dict | None = None) -> str:
    result = sandbox.exec(["bash", "-c", script], timeout_s=120, user=user, workdir="/", env=env)
    if result.exit_code != 0:
        raise WebProxyError(f"could not install the web proxy's CA into {what}: "
                            f"{(result.stderr or result.stdout).strip()[:300]}")
    return result.stdout
