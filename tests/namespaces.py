"""The `unshare` prefix a test needs to give a child its own mount (or network) namespace.

As root `unshare -m`; as an ordinary user `unshare -rm` (a user namespace), where the kernel allows it.
"""

from __future__ import annotations

import shutil
import subprocess


def unshare_prefix(flags: str, probe: str = "true") -> list[str] | None:
    """`["unshare", "-FLAGS"]` or `["unshare", "-rFLAGS"]`, whichever runs the shell command `probe`
    here, or None when neither does (the test then skips with its reason)."""
    if not shutil.which("unshare"):
        return None
    for prefix in (["unshare", f"-{flags}"], ["unshare", f"-r{flags}"]):
        try:
            cp = subprocess.run([*prefix, "sh", "-c", probe], capture_output=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            continue
        if cp.returncode == 0:
            return prefix
    return None


#: What a test runs to check that it may mount a small tmpfs (a full disk made on purpose).
MOUNT_TMPFS = "mount -t tmpfs -o size=1m tmpfs /mnt"
