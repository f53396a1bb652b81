#!/usr/bin/env bash
# Installs the REAL agent CLIs the integration tests drive (against a fake model server), at
# pinned versions, into a cache keyed by version; prints the cache folder on stdout.
#   <cache>/claude-code-<version>/node_modules/.bin/claude
#   <cache>/codex-<version>/node_modules/.bin/codex
#   <cache>/gemini-cli-<version>/node_modules/.bin/gemini
#   <cache>/opencode-<version>/node_modules/.bin/opencode
#   <cache>/aider-<version>/bin/aider            (a Python venv)
# Cache: $SWARM_TEST_CLIS, else ${XDG_CACHE_HOME:-$HOME/.cache}/swarm-attack-test-clis.
# Needs node and npm (any npm that can install from the registry) and python3 (3.10-3.12,
# with the venv module). Exit 1 when it cannot.
set -euo pipefail
CLAUDE_CODE_VERSION=2.1.330
CODEX_VERSION=0.169.0
GEMINI_CLI_VERSION=0.61.0
OPENCODE_VERSION=1.18.33
AIDER_VERSION=0.86.2
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
install_venv() { # <dir name> <pip requirement> <bin>
  local dir="$cache/$1"
  if [ -x "$dir/bin/$3" ] && [ -e "$dir/.complete" ]; then return 0; fi
  command -v python3 >/dev/null || { echo "install-test-clis: python3 is not on PATH" >&2; exit 1; }
  # a venv is not relocatable: build it at its final path under a lock
  exec 9>"$cache/.$1.lock"
  flock 9
  if [ -x "$dir/bin/$3" ] && [ -e "$dir/.complete" ]; then flock -u 9; return 0; fi
  rm -rf "$dir"
  python3 -m venv "$dir" >&2
  "$dir/bin/pip" install --quiet --disable-pip-version-check "$2" >&2
  "$dir/bin/$3" --version >&2
  touch "$dir/.complete"
  flock -u 9
}
install_one "claude-code-$CLAUDE_CODE_VERSION" "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" claude
install_one "codex-$CODEX_VERSION" "@openai/codex@$CODEX_VERSION" codex
install_one "gemini-cli-$GEMINI_CLI_VERSION" "@google/gemini-cli@$GEMINI_CLI_VERSION" gemini
install_one "opencode-$OPENCODE_VERSION" "opencode-ai@$OPENCODE_VERSION" opencode
install_venv "aider-$AIDER_VERSION" "aider-chat==$AIDER_VERSION" aider
echo "$cache"
