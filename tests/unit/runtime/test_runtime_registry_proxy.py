"""The registries-only proxy's decisions: which destinations it tunnels to, how it reads them."""

from __future__ import annotations

import pytest

from clawmark.runtime.registry_proxy import _destination, allowed, proxy_env


def test_only_registry_hosts_on_web_ports_are_allowed():
    assert allowed("pypi.org", 443) and allowed("files.pythonhosted.org", 443)
    assert allowed("registry.npmjs.org", 443) and allowed("DEB.debian.org.", 80)
    assert not allowed("pypi.org", 22) and not allowed("evil-pypi.org", 443)
    assert not allowed("pypi.org.attacker.test", 443)


def test_destinations_of_connect_and_absolute_form_requests():
    assert _destination("CONNECT", "pypi.org:443") == ("pypi.org", 443)
    assert _destination("GET", "http://deb.debian.org/debian/dists/bookworm/Release") == ("deb.debian.org", 80)
    assert _destination("GET", "http://deb.debian.org:8080/x") == ("deb.debian.org", 8080)
    with pytest.raises(ValueError):
        _destination("GET", "/relative/path")


def test_proxy_env_keeps_the_gateway_direct():
    env = proxy_env(3128)
    assert env["HTTPS_PROXY"] == env["http_proxy"] == "http://clawmark-gateway:3128"
    assert "clawmark-gateway" in env["NO_PROXY"].split(",")


def test_client_registrations_are_counted():
    from clawmark.runtime import registry_proxy as proxy

    proxy.allow_client("10.9.8.7")
    proxy.allow_client("10.9.8.7")
    proxy.forget_client("10.9.8.7")
    assert "10.9.8.7" in proxy._clients
    proxy.forget_client("10.9.8.7")
    assert "10.9.8.7" not in proxy._clients
