"""Package hygiene: hostile archives and trees are refused before anything is installed."""

from __future__ import annotations

import io
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from skillyard.install import HygieneError, Installer, Limits
from skillyard.install.hygiene import copy_tree, extract_archive

SKILL = b"---\nname: demo\ndescription: A demo.\n---\nHello.\n"


def make_zip(path: Path, members: list[tuple[str, bytes, int | None]]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data, mode in members:
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            if mode is not None:
                info.external_attr = mode << 16
            zf.writestr(info, data)
    return path


def make_tar(path: Path, members: list[tarfile.TarInfo | tuple[str, bytes]]) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for m in members:
            if isinstance(m, tarfile.TarInfo):
                tf.addfile(m)
            else:
                info = tarfile.TarInfo(m[0])
                info.size = len(m[1])
                info.mode = 0o644
                tf.addfile(info, io.BytesIO(m[1]))
    return path


def tinfo(name: str, kind: bytes, **kw: object) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    for k, v in kw.items():
        setattr(info, k, v)
    return info


def test_good_zip_extracts_with_safe_modes(tmp_path: Path) -> None:
    z = make_zip(
        tmp_path / "a.zip",
        [
            ("demo/SKILL.md", SKILL, 0o100644),
            ("demo/run.sh", b"#!/bin/sh\n", 0o104777),
            ("demo/sub/", b"", 0o40755),
        ],
    )
    extract_archive(z, tmp_path / "out")
    assert (tmp_path / "out/demo/SKILL.md").read_bytes() == SKILL
    mode = stat.S_IMODE(os.stat(tmp_path / "out/demo/run.sh").st_mode)
    assert mode == 0o755  # executable kept, setuid and world-write dropped
    assert stat.S_IMODE(os.stat(tmp_path / "out/demo/SKILL.md").st_mode) == 0o644


def test_good_tar_extracts(tmp_path: Path) -> None:
    t = make_tar(tmp_path / "a.tgz", [("demo/SKILL.md", SKILL), tinfo("demo/x", tarfile.DIRTYPE, mode=0o755)])
    extract_archive(t, tmp_path / "out")
    assert (tmp_path / "out/demo/SKILL.md").is_file()


@pytest.mark.parametrize(
    ("members", "reason"),
    [
        ([("../evil", b"x", None)], "'..'"),
        ([("a/../../evil", b"x", None)], "'..'"),
        (["/etc/evil"], "absolute"),
        ([("C:/evil", b"x", None)], "absolute"),
        ([("a\\..\\evil", b"x", None)], "backslash"),
        ([("SKILL.md", SKILL, None), ("skill.md", SKILL, None)], "duplicate"),
        ([("caf\u00e9.md", b"a", None), ("cafe\u0301.md", b"b", None)], "duplicate"),
        ([("link", b"/etc/passwd", 0o120777)], "link"),
        ([("dev", b"", 0o020644)], "special"),
    ],
)
def test_hostile_zip_members_rejected(tmp_path: Path, members: list, reason: str) -> None:
    fixed = [m if isinstance(m, tuple) else (m, b"x", None) for m in members]
    z = make_zip(tmp_path / "bad.zip", fixed)
    with pytest.raises(HygieneError) as exc:
        extract_archive(z, tmp_path / "out")
    assert reason in exc.value.reason
    assert not (tmp_path / "evil").exists()
    assert exc.value.to_dict() == {
        "installed": False,
        "error": "package rejected",
        "reason": exc.value.reason,
        "path": exc.value.path,
    }


@pytest.mark.parametrize(
    ("member", "reason"),
    [
        (tinfo("link", tarfile.SYMTYPE, linkname="../../etc/passwd"), "link"),
        (tinfo("hard", tarfile.LNKTYPE, linkname="/etc/passwd"), "link"),
        (tinfo("dev", tarfile.CHRTYPE, devmajor=1, devminor=3), "special"),
        (tinfo("blk", tarfile.BLKTYPE, devmajor=8, devminor=0), "special"),
        (tinfo("fifo", tarfile.FIFOTYPE), "special"),
        (tinfo("../x", tarfile.DIRTYPE), "'..'"),
    ],
)
def test_hostile_tar_members_rejected(tmp_path: Path, member: tarfile.TarInfo, reason: str) -> None:
    t = make_tar(tmp_path / "bad.tgz", [("SKILL.md", SKILL), member])
    with pytest.raises(HygieneError) as exc:
        extract_archive(t, tmp_path / "out")
    assert reason in exc.value.reason


def test_zip_bomb_ratio_rejected(tmp_path: Path) -> None:
    z = make_zip(
        tmp_path / "bomb.zip", [("SKILL.md", SKILL, None), ("zeros.txt", b"\0" * (9 * 1024 * 1024), None)]
    )
    assert z.stat().st_size < 100_000
    with pytest.raises(HygieneError) as exc:
        extract_archive(z, tmp_path / "out")
    assert "ratio" in exc.value.reason or "bomb" in exc.value.reason


def test_tar_bomb_total_size_rejected(tmp_path: Path) -> None:
    data = b"\0" * (2 * 1024 * 1024)
    t = make_tar(tmp_path / "bomb.tgz", [(f"f{i}.txt", data) for i in range(5)])
    with pytest.raises(HygieneError):
        extract_archive(t, tmp_path / "out", Limits(max_total_bytes=6 * 1024 * 1024))


def test_file_count_and_per_file_limits(tmp_path: Path) -> None:
    z = make_zip(tmp_path / "many.zip", [(f"f{i}.txt", b"x", None) for i in range(30)])
    with pytest.raises(HygieneError) as exc:
        extract_archive(z, tmp_path / "o1", Limits(max_files=20))
    assert "too many" in exc.value.reason
    z2 = make_zip(tmp_path / "big.zip", [("big.txt", os.urandom(4096), None)])
    with pytest.raises(HygieneError) as exc:
        extract_archive(z2, tmp_path / "o2", Limits(max_file_bytes=1000))
    assert "larger" in exc.value.reason


def test_encrypted_zip_member_rejected(tmp_path: Path) -> None:
    z = make_zip(tmp_path / "enc.zip", [("SKILL.md", SKILL, None)])
    raw = bytearray(z.read_bytes())
    # set the "encrypted" flag bit in the local and central headers
    for sig in (b"PK\x03\x04", b"PK\x01\x02"):
        i = raw.find(sig)
        off = i + (6 if sig == b"PK\x03\x04" else 8)
        raw[off] |= 0x1
    z.write_bytes(bytes(raw))
    with pytest.raises(HygieneError) as exc:
        extract_archive(z, tmp_path / "out")
    assert "encrypted" in exc.value.reason


@pytest.mark.parametrize("content", [b"", b"not an archive", b"PK\x03\x04garbage", b"\x1f\x8bgarbage"])
def test_garbage_archives_rejected(tmp_path: Path, content: bytes) -> None:
    p = tmp_path / "x.zip"
    p.write_bytes(content)
    with pytest.raises(HygieneError):
        extract_archive(p, tmp_path / "out")


# ---------------------------------------------------------------- local trees


def skill_dir(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "SKILL.md").write_bytes(SKILL)
    return root


def test_copy_tree_keeps_internal_links_and_strips_git(tmp_path: Path) -> None:
    src = skill_dir(tmp_path / "src")
    (src / "docs").mkdir()
    (src / "docs/a.md").write_text("a")
    (src / "link.md").symlink_to("docs/a.md")
    (src / ".git").mkdir()
    (src / ".git/config").write_text("x")
    copy_tree(src, tmp_path / "dst")
    assert os.readlink(tmp_path / "dst/link.md") == "docs/a.md"
    assert not (tmp_path / "dst/.git").exists()
    dst = tmp_path / "dst"
    copied = sorted(p.relative_to(dst).as_posix() for p in dst.rglob("*") if p.is_file() or p.is_symlink())
    assert copied == ["SKILL.md", "docs/a.md", "link.md"]


@pytest.mark.parametrize("target", ["/etc/passwd", "../../outside", "../src2"])
def test_copy_tree_refuses_escaping_links(tmp_path: Path, target: str) -> None:
    src = skill_dir(tmp_path / "src")
    (tmp_path / "outside").write_text("secret")
    (src / "evil").symlink_to(target)
    with pytest.raises(HygieneError) as exc:
        copy_tree(src, tmp_path / "dst")
    assert "link" in exc.value.reason


def test_copy_tree_refuses_fifo(tmp_path: Path) -> None:
    src = skill_dir(tmp_path / "src")
    os.mkfifo(src / "pipe")
    with pytest.raises(HygieneError) as exc:
        copy_tree(src, tmp_path / "dst")
    assert "special" in exc.value.reason


def test_copy_tree_drops_setuid(tmp_path: Path) -> None:
    src = skill_dir(tmp_path / "src")
    (src / "tool.sh").write_text("#!/bin/sh\n")
    os.chmod(src / "tool.sh", 0o4777)
    copy_tree(src, tmp_path / "dst")
    assert stat.S_IMODE(os.stat(tmp_path / "dst/tool.sh").st_mode) == 0o755


def test_installer_reports_hygiene_failure_without_writing(tmp_path: Path) -> None:
    z = make_zip(tmp_path / "bad.zip", [("SKILL.md", SKILL, None), ("../../escape.txt", b"x", None)])
    root = tmp_path / "root"
    res = Installer(root).install(str(z)).to_dict()
    assert res["installed"] is False and res["error"] == "package rejected"
    assert not (tmp_path / "escape.txt").exists()
    assert not (root / "demo").exists()
    assert list((root / ".staging").iterdir()) == []


def test_installer_installs_local_archive(tmp_path: Path) -> None:
    z = make_zip(tmp_path / "ok.skill", [("demo/SKILL.md", SKILL, None)])
    res = Installer(tmp_path / "root").install(f"local:{z}").to_dict()
    assert res["installed"] is True and res["name"] == "demo"
    assert res["revision"] is None
