"""Helpers of the web proxy tests: mitmdump in its venv, and a "live" web site run by the test
as its own container (Debian's python3 http.server) whose pages the test can change or stop."""

from __future__ import annotations

import subprocess
import time
import uuid

import httpx
import pytest

from clawmark.settings import PROJECT_ROOT
from clawmark.webproxy.config import DEFAULT_MITMDUMP

SITE_PORT = 8000
HTTPS_PORT = 8443
TLS_SERVER = """import functools, http.server, ssl
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory="/site")
server = http.server.ThreadingHTTPServer(("0.0.0.0", 8443), handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain("/tls/cert.pem", "/tls/key.pem")
server.socket = context.wrap_socket(server.socket, server_side=True)
server.serve_forever()
"""
FORM_PAGE = """<html><body><h1>Shop</h1>
<form method="post" action="/api/checkout"><input name="item" value="book"><input name="card" value="4111">
<button type="submit">Buy</button></form></body></html>
"""


@pytest.fixture(scope="session")
def mitmdump() -> str:
    subprocess.run(["bash", str(PROJECT_ROOT / "scripts" / "webproxy-up.sh")], check=True, timeout=900)
    return str(DEFAULT_MITMDUMP)


class LiveSite:
    """A web server in a container on Docker's bridge: the host (and so the proxy) reaches it,
    task containers on the internal network do not."""

    def __init__(self, client, image: str) -> None:
        self.container = client.containers.run(
            image, ["python3", "-u", "-m", "http.server", str(SITE_PORT), "--directory", "/site"],
            detach=True, name=f"clawmark-test-site-{uuid.uuid4().hex[:8]}", user="0",
            labels={"clawmark.managed": "true", "clawmark.test": "webproxy"}, entrypoint=[],
            working_dir="/", network="bridge")
        self.write("index.html", "<h1>price: 10 EUR (version 1)</h1>\n")
        self.write("form.html", FORM_PAGE)
        self.container.reload()
        self.ip = self.container.attrs["NetworkSettings"]["Networks"]["bridge"]["IPAddress"]
        self._wait_up()

    def url(self, path: str) -> str:
        return f"http://{self.ip}:{SITE_PORT}/{path}"

    def write(self, name: str, text: str) -> None:
        script = f"mkdir -p /site && cat > /site/{name} <<'EOF'\n{text}EOF\n"
        result = self.container.exec_run(["sh", "-c", script], user="0")
        assert result.exit_code == 0, result.output

    def serve_https(self, cert_pem: bytes, key_pem: bytes) -> str:
        """Also serve /site over TLS on HTTPS_PORT with this certificate; the base URL."""
        import io
        import tarfile

        payload = io.BytesIO()
        with tarfile.open(fileobj=payload, mode="w") as tar:
            for name, data in (("cert.pem", cert_pem), ("key.pem", key_pem), ("tls.py", TLS_SERVER.encode())):
                info = tarfile.TarInfo(f"tls/{name}")
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        self.container.put_archive("/", payload.getvalue())
        self.container.exec_run(["python3", "-u", "/tls/tls.py"], detach=True, user="0")
        base = f"https://{self.ip}:{HTTPS_PORT}"
        for _ in range(100):
            if self.container.exec_run(["sh", "-c", f"grep -qi ':{HTTPS_PORT:04X} ' /proc/net/tcp"]).exit_code == 0:
                return base
            time.sleep(0.2)
        raise AssertionError("the test site's TLS server never listened")

    def fetch_direct(self, path: str) -> str:
        return httpx.get(self.url(path), timeout=10).text

    def request_log(self) -> str:
        return self.container.logs().decode(errors="replace")

    def stop(self) -> None:
        self.container.remove(force=True)

    def _wait_up(self) -> None:
        for _ in range(100):
            try:
                httpx.get(self.url("index.html"), timeout=1)
                return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise AssertionError(f"the test site never answered: {self.request_log()[-400:]}")


def self_signed(ip: str) -> tuple[bytes, bytes]:
    """A certificate (its own CA) for `ip`, and its key, as PEM."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "clawmark test site")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(ip))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    return cert.public_bytes(serialization.Encoding.PEM), key_pem


@pytest.fixture
def live_site(docker_client):
    from clawmark.runtime.images import ensure_image

    site = LiveSite(docker_client, ensure_image("python"))
    try:
        yield site
    finally:
        try:
            site.stop()
        except Exception:  # noqa: BLE001 - the test may have stopped it already
            pass
