#!/usr/bin/env bash
# Installs the REAL agent CLIs the integration tests drive (against a fake model server), at
# pinned versions, into a cache keyed by version; prints the cache folder on stdout.
#   <cache>/claude-code-<version>/node_modules/.bin/claude
#   <cache>/codex-<version>/node_modules/.bin/codex
# Cache: $SWARM_TEST_CLIS, else ${XDG_CACHE_HOME:-$HOME/.cache}/swarm-attack-test-clis.
# Needs node and npm (any npm that can install from the registry). Exit 1 when it cannot.
set -euo pipefail
CLAUDE_CODE_VERSION=2.1.330
CODEX_VERSION=0.169.0
cache="${SWARM_TEST_CLIS:-${XDG_CACHE_HOME:-$HOME/.cache}/swarm-attack-test-clis}"
mkdir -p "$cache"
install_one() { # <dir name> <npm package@version> <bin>
  local dir="$cache/$1"
  if [ -x "$dir/node_modules/.bin/$3" ]; then return 0; fi
  command -v npm >/dev/null || { echo "install-test-clis: npm is not on PATH" >&2; exit 1; }
  local tmp
  tmp="$(mktemp -d "$cache/.install.XXXXXX")"
  npm install --silent --no-audit --no-fund --prefix "$tmp" "$2" >&2
  "$tmp/node_modules/.bin/$3" --version >&2
  # atomic: a concurrent install of the same version simply loses the race
  mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
}
install_one "claude-code-$CLAUDE_CODE_VERSION" "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" claude
install_one "codex-$CODEX_VERSION" "@openai/codex@$CODEX_VERSION" codex
echo "$cache"
