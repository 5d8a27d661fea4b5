#!/usr/bin/env bash
# A short tour of skillyard over the skills bundled with it.
set -euo pipefail
cd "$(dirname "$0")/.."
sy() { .venv/bin/skillyard --root src/skillyard/builtin "$@"; }
step() { printf '\n\033[1m$ skillyard %s\033[0m\n' "$*"; }

step list --verbose;                 sy list --verbose
step check video-frames;             sy check video-frames || true
step info json-toolkit --json;       sy info json-toolkit --json
step validate --strict;              .venv/bin/skillyard validate --strict src/skillyard/builtin/*/ || true
step search "count words in a document"; sy search "count words in a document" || true
step prompt --format markdown;       sy prompt --format markdown || true
# Search and the catalog over a larger collection: 84 skills from the search evaluation set.
ev() { .venv/bin/skillyard --root benchmarks/search_eval/skills "$@"; }
step --root benchmarks/search_eval/skills search "shrink these holiday pics for the website"
ev search "shrink these holiday pics for the website" || true
step --root benchmarks/search_eval/skills search "take a screnshot of the dashboard and blur the emails"
ev search "take a screnshot of the dashboard and blur the emails" || true
step --root benchmarks/search_eval/skills prompt --format markdown --budget 1200 --query "'turn these numbers into a bar graph'"
ev prompt --format markdown --budget 1200 --query "turn these numbers into a bar graph" || true
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
step call skill_load '{"skill": "text-report"}' --session "$tmp/s.json"
sy call skill_load '{"skill": "text-report"}' --session "$tmp/s.json" || true
step run text-report --output "'out/*.json'" -- "'python3 scripts/text_stats.py SKILL.md > out/report.json && echo done'"
sy run text-report --output 'out/*.json' -- 'python3 scripts/text_stats.py SKILL.md > out/report.json && echo done' || true
step call count_lines '{"path": "sample.txt"}'
sy call count_lines '{"path": "sample.txt"}' || true
step call find_text '{"pattern": "alpha", "path": "sample.txt"}'
sy call find_text '{"pattern": "alpha", "path": "sample.txt"}' || true
printf '\nNext: `skillyard serve` exposes all of this to any MCP host (see docs/mcp.md).\n'
