"""Data flows one way: model <- parsing <- cache/discovery <- registry <- tools/mcp/cli.

Every `import skillyard...` in the package, including those inside functions, is
read with `ast` and checked against the layers. A lower layer reaching up is a
cycle waiting to happen, however it is hidden.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "skillyard"

#: The surfaces: what people and models talk to. Nothing below them may import them.
SURFACES = {
    "tools",
    "mcp",
    "cli",
    "_cli_io",
    "_cli_install",
    "_cli_tools",
    "_cli_serve",
    "_cli_chat",
    "_cli_remote",
}
SURFACES |= {"chat", "adapters", "remote", "__main__"}
#: The map of skills a host asks: discovery, registry and what they serve.
MAP = {"registry", "discovery", "cache", "search", "prompt", "reports", "session", "telemetry"}
#: The scan under the registry: walking roots, parsing each skill file, the start-up cache.
SCAN = {"discovery", "cache"}


def _imports(*, typing_only: bool = True) -> dict[str, set[str]]:
    """Every module's skillyard imports, inside functions too; `typing_only=False` leaves out the
    `if TYPE_CHECKING:` blocks (annotations, never executed)."""
    graph: dict[str, set[str]] = {}
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC.parent).with_suffix("")
        module = ".".join(rel.parts).removesuffix(".__init__")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = set()
        if not typing_only:
            skipped = {
                id(n)
                for block in ast.walk(tree)
                if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
                for stmt in block.body
                for n in ast.walk(stmt)
            }
        deps = graph.setdefault(module, set())
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.Import):
                deps.update(a.name for a in node.names if a.name.startswith("skillyard."))
            elif (
                isinstance(node, ast.ImportFrom)
                and node.level == 0
                and (node.module or "").startswith("skillyard.")
            ):
                deps.add(node.module or "")
    return graph


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _violations(lower: set[str], upper: set[str]) -> list[str]:
    return sorted(
        f"{m} imports {d}"
        for m, deps in _imports().items()
        for d in deps
        if _top(m) in lower and _top(d) in upper
    )


def test_the_graph_is_read() -> None:
    graph = _imports()
    assert "skillyard.registry" in graph and "skillyard.model" in graph["skillyard.registry"]


def test_nothing_below_the_surfaces_imports_them() -> None:
    below = {_top(m) for m in _imports()} - SURFACES - {""}
    assert _violations(below, SURFACES) == []


def test_install_and_execution_know_nothing_of_the_map_or_the_surfaces() -> None:
    assert _violations({"install", "execution"}, MAP | SURFACES) == []


def test_the_scan_sits_below_the_registry() -> None:
    """The walk, the parse of each file and the start-up cache know nothing of the registry or of
    what is built from its skills (the search index and the SKILL.toml tool plan have their owners)."""
    upper = (MAP - SCAN) | SURFACES | {"toml_tools", "tools", "install", "execution"}
    assert _violations(SCAN, upper) == []


def test_model_and_parsing_are_the_bottom() -> None:
    upper = MAP | SURFACES | {"install", "execution", "toml_tools", "eligibility", "validate"}
    assert _violations({"model", "parsing", "fsread", "skill_files"}, upper) == []


def test_model_reads_no_skill_text() -> None:
    """`Skill` is data: bodies are read through parsing, docs and file listings through skill_files."""
    assert _imports()["skillyard.model"] == set()


def test_no_import_cycles_between_parts() -> None:
    """No part of skillyard (a top-level module or package) imports, at run time and from any function,
    a part that imports it back: the layers above hold without imports hidden inside functions."""
    edges: dict[str, set[str]] = {}
    for module, deps in _imports(typing_only=False).items():
        for dep in deps:
            if _top(module) and _top(dep) and _top(module) != _top(dep):
                edges.setdefault(_top(module), set()).add(_top(dep))

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            part = todo.pop()
            if part == goal:
                return True
            if part not in seen:
                seen.add(part)
                todo.extend(edges.get(part, ()))
        return False

    cycles = sorted(f"{a} <-> {b}" for a, deps in edges.items() for b in deps if reaches(b, a))
    assert edges and cycles == []
