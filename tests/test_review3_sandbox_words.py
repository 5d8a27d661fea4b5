"""The bwrap identity options and the setpriv hand-over, word for word: these lists decide who the
sandboxed command runs as and which capabilities it keeps, so any change to them must be deliberate."""

from __future__ import annotations

from skillyard.execution import sandbox
from skillyard.execution.sandbox import SandboxExecutor


def _executor(features: frozenset[str], *, as_root: bool) -> SandboxExecutor:
    cls = type("Probed", (SandboxExecutor,), {"features": features})
    ex = cls("/usr/bin/bwrap", uid=1234, gid=4321)
    ex.as_root = as_root
    ex.setpriv = "/usr/bin/setpriv" if as_root else None
    return ex


def test_user_namespace_identity_words() -> None:
    ex = _executor(frozenset(), as_root=False)
    assert ex._identity_args() == ["--unshare-user", "--cap-drop", "ALL", "--uid", "1234", "--gid", "4321"]
    ex = _executor(frozenset({"--disable-userns"}), as_root=False)
    assert ex._identity_args()[-1] == "--disable-userns"
    assert ex.command_prefix() == []


def test_root_keeps_only_the_switch_capabilities_then_setpriv_drops_them() -> None:
    ex = _executor(frozenset({"--disable-userns"}), as_root=True)
    caps = [w for c in sandbox._SWITCH_CAPS for w in ("--cap-add", c)]
    assert ex._identity_args() == ["--cap-drop", "ALL", *caps]
    assert ex.command_prefix() == [
        "/usr/bin/setpriv",
        "--reuid=1234",
        "--regid=4321",
        "--clear-groups",
        "--inh-caps=-all",
        "--ambient-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
        "/bin/bash",
        "--noprofile",
        "--norc",
        "-c",
        sandbox._EXPORT_ENV,
        "skillyard-env",
    ]


def test_network_etc_files() -> None:
    assert sandbox._ETC_NETWORK == (
        "/etc/resolv.conf",
        "/etc/hosts",
        "/etc/nsswitch.conf",
        "/etc/gai.conf",
        "/etc/ssl",
        "/etc/ca-certificates",
        "/etc/pki",
    )
