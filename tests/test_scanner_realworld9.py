"""Shapes from the eighth sample of public skills the scanner misread, each benign shape next to the
malicious one the same rule or reader must still block. Written from the shape of the triggering
lines, not copied."""

from __future__ import annotations

from pathlib import Path

from scanner_support import blocked


def _block(lang: str, *lines: str) -> str:
    body = "\n".join(lines)
    return f"# Safe commands\n\nHow to run commands safely.\n\n```{lang}\n{body}\n```\n"


# ---------------------------------------------------------------- a payload named in a trailing comment


def test_a_payload_named_in_a_trailing_comment_is_not_run(tmp_path: Path) -> None:
    for i, (lang, line) in enumerate(
        (
            ("perl", """    qx("find '$dir' -name x");  # Unsafe: if $dir = "'; rm -rf ~ #\""""),
            ("ruby", """system("ls #{path}")  # path = "x; rm -rf /" would wipe the disk"""),
            ("python", """os.system(f"du -sh '{d}'")  # d = "'; rm -rf $HOME; '\""""),
        )
    ):
        assert "SY-DES-001" not in blocked(tmp_path / str(i), {}, _block(lang, line)), line


def test_the_command_itself_or_a_hash_inside_a_string_still_blocks(tmp_path: Path) -> None:
    for i, (lang, line) in enumerate(
        (
            # the command before the comment
            ("perl", """system("rm -rf ~");  # clean up"""),
            # a `#` inside a string starts no comment
            ("perl", """system("echo done  # '; rm -rf ~");"""),
            ("python", r"""os.system("echo \"x  # \"; rm -rf ~")"""),
            ("ruby", """`echo '#' ; echo "  # x"; rm -rf /`"""),
            # a language whose comments are not `#`
            ("javascript", """exec("ls")  # x; rm -rf ~"""),
        )
    ):
        assert "SY-DES-001" in blocked(tmp_path / str(i), {}, _block(lang, line)), line
