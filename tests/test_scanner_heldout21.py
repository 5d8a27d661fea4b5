"""Classes the twenty-first corpus set showed, each written from its shape (not from the instance),
with a look-alike on the other side that must keep its verdict.
"""

from __future__ import annotations

from pathlib import Path

from scanner_support import blocking

# ------------------------------------------------ a unit queried with stderr silenced is not a unit written


def test_enabling_a_packaged_timer_after_a_silenced_query_does_not_block(tmp_path: Path) -> None:
    sh = (
        "#!/bin/sh\n"
        "systemctl is-active logrotate.timer 2>/dev/null || sudo systemctl enable --now logrotate.timer\n"
        "systemctl list-timers logrotate.timer\n"
    )
    assert blocking(tmp_path, {"check.sh": sh}) == {}


def test_enabling_a_timer_the_script_writes_blocks(tmp_path: Path) -> None:
    sh = (
        "#!/bin/sh\n"
        "printf '[Timer]\\nOnBootSec=1min\\n' > ~/.config/systemd/user/sync.timer\n"
        "systemctl --user enable --now sync.timer 2>/dev/null\n"
    )
    assert "SY-PER-002" in blocking(tmp_path, {"setup.sh": sh})
