#!/usr/bin/env bash
# Group commit subjects between two refs by conventional-commit type.
set -euo pipefail
from="${1:-$(git describe --tags --abbrev=0 2>/dev/null || git rev-list --max-parents=0 HEAD | tail -n 1)}"
to="${2:-HEAD}"
log=$(git log --no-merges --format='%s' "${from}..${to}")
section() {
  local title=$1 pattern=$2
  local lines
  lines=$(printf '%s\n' "$log" | grep -E "$pattern" || true)
  [ -n "$lines" ] && printf '## %s\n\n%s\n\n' "$title" "$(printf '%s\n' "$lines" | sed 's/^/- /')"
  return 0
}
printf '# Changes %s..%s\n\n' "$from" "$to"
section Features '^feat(\(.*\))?!?:'
section Fixes '^fix(\(.*\))?!?:'
section Other '^(chore|docs|refactor|perf|test|build|ci|style)(\(.*\))?!?:'
