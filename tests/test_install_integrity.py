"""A skill changed after install is ineligible, however the install root is named and however long the host runs."""

from __future__ import annotations

import json
from pathlib import Path

from skillyard import Registry, Session, Toolkit
from skillyard.config import parse_config
from skillyard.discovery import resolve_roots
from skillyard.install import Installer, TrustPolicy


def install(config, src: Path) -> None:
    res = Installer(config.install_root, TrustPolicy.from_config(config)).install(f"local:{src}")
    assert res.installed, res.to_dict()


def test_install_root_named_as_a_custom_root_is_still_checked(tmp_path: Path, make_skill) -> None:
    inst = tmp_path / "inst"
    config = parse_config({"install": {"root": str(inst)}, "skills": {"roots": [str(inst)]}})
    install(config, make_skill(tmp_path / "src", "good"))
    roots = resolve_roots(None, config)
    assert [r.source for r in roots] == ["install"]
    assert [r.source for r in resolve_roots([inst], config)] == ["install"]  # --root too
    (inst / "good" / "SKILL.md").write_text((inst / "good" / "SKILL.md").read_text() + "\ntampered\n")
    reg = Registry(roots, config)
    assert reg.eligibility("good").reasons == ("Modified since install",)


def test_changes_after_load_are_caught_before_running(tmp_path: Path, make_skill) -> None:
    inst = tmp_path / "inst"
    config = parse_config({"install": {"root": str(inst)}, "execution": {"executor": "local"}})
    src = make_skill(tmp_path / "src", "scr", files={"scripts/run.sh": "echo hello\n"})
    install(config, src)
    reg = Registry(resolve_roots([inst], config), config)
    with Toolkit(reg) as tk:
        session = Session()
        out = json.loads(
            tk.call("skill_run", {"skill": "scr", "command": "sh scripts/run.sh"}, session=session).content
        )
        assert out["stdout"] == "hello\n"
        (inst / "scr" / "scripts" / "run.sh").write_text("echo PWNED\n")  # not SKILL.md: no reload notices
        assert reg.eligibility("scr").reasons == ("Modified since install",)
        res = tk.call("skill_run", {"skill": "scr", "command": "sh scripts/run.sh"}, session=session)
        assert res.is_error and "PWNED" not in res.content and "Modified since install" in res.content


def test_untrusted_url_is_refused_as_untrusted_even_when_malformed(tmp_path: Path) -> None:
    config = parse_config({"install": {"root": str(tmp_path / "inst")}})
    res = Installer(config.install_root, TrustPolicy.from_config(config)).install(
        "https://sketchy.site/skill.md"
    )
    data = res.to_dict()
    assert data["installed"] is False and data["error"] == "untrusted source"
    assert data["source"] == "https://sketchy.site/skill.md" and data["hint"]
