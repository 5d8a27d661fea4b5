"""Install edge cases: loopback hosts in other spellings, a skill changed while `trust accept`
scans it, and a FIFO planted as skills.lock."""

from __future__ import annotations

import urllib.request

import pytest

from skillyard.install.errors import SourceError
from skillyard.install.sources import _SafeRedirect, is_loopback


@pytest.mark.parametrize(
    "target",
    [
        "https://0.0.0.0:2375/containers/json",  # Linux connects 0.0.0.0 to this machine
        "https://[::]/",
        "https://[::ffff:127.0.0.1]:8080/admin",
        "https://localhost.:8080/admin",
        "https://LOCALHOST/",
        "https://127.1/",
        "https://2130706433/",
        "https://0x7f000001/",
        "https://0177.0.0.1/",
    ],
)
def test_a_remote_server_cannot_redirect_to_loopback_in_another_spelling(target: str) -> None:
    req = urllib.request.Request("https://skills.example/pkg.zip")
    with pytest.raises(SourceError) as e:
        _SafeRedirect().redirect_request(req, None, 302, "Found", {}, target)
    assert "refusing redirect" in e.value.details["reason"]


def test_remote_hosts_are_not_taken_for_loopback() -> None:
    for host in (
        "skills.example",
        "127.0.0.1.example",
        "localhost.example",
        "10.0.0.1",
        "::ffff:8.8.8.8",
        "",
        None,
    ):
        assert not is_loopback(host), host
    handler = _SafeRedirect()
    req = urllib.request.Request("https://skills.example/a.zip")
    assert handler.redirect_request(req, None, 302, "Found", {}, "https://cdn.example:8443/b.zip")
