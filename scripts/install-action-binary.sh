#!/usr/bin/env bash
# Installs the prebuilt swarm-attack binary for the Action's own ref and this runner's
# OS/arch, verified against the release's SHA256SUMS. Used by action.yml.
#
# Environment (all set by action.yml; none is ever expanded into a command line):
#   SWARM_ATTACK_REPO   owner/name of the action's repository (github.action_repository)
#   SWARM_ATTACK_REF    the action's ref (github.action_ref), e.g. v0.3.0
#   RUNNER_OS           Linux | macOS          RUNNER_ARCH  X64 | ARM64
#   SWARM_ATTACK_DOWNLOAD_BASE  optional; default $GITHUB_SERVER_URL/<repo>/releases/download
#   SWARM_ATTACK_BIN_DIR        where to put the binary (default: $HOME/.swarm-attack/bin)
#
# Exit codes: 0 installed (the binary's path on stdout); 3 no release for this ref or
# platform (the caller builds from source instead); 1 anything else, including a checksum
# that does not match (never silently fall back on a tampered download).
set -euo pipefail

repo="${SWARM_ATTACK_REPO:-}"
ref="${SWARM_ATTACK_REF:-}"
if [ -z "$repo" ] || [ -z "$ref" ]; then
  echo "no action repository/ref to download a release for" >&2
  exit 3
fi
case "${RUNNER_OS:-}/${RUNNER_ARCH:-}" in
  Linux/X64) target=x86_64-unknown-linux-musl ;;
  Linux/ARM64) target=aarch64-unknown-linux-musl ;;
  macOS/X64) target=x86_64-apple-darwin ;;
  macOS/ARM64) target=aarch64-apple-darwin ;;
  *)
    echo "no prebuilt binary for ${RUNNER_OS:-?}/${RUNNER_ARCH:-?}" >&2
    exit 3
    ;;
esac
base="${SWARM_ATTACK_DOWNLOAD_BASE:-${GITHUB_SERVER_URL:-https://github.com}/$repo/releases/download}"
asset="swarm-attack-$target.tar.gz"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

fetch() { # url dest → 0 ok, 3 not found, 1 other failure
  local code
  code="$(curl --silent --show-error --location --proto '=https,http' --retry 3 \
    --output "$2" --write-out '%{http_code}' -- "$1")" || return 1
  case "$code" in
    200) return 0 ;;
    404) return 3 ;;
    *) echo "download of $1 answered HTTP $code" >&2; return 1 ;;
  esac
}

status=0
fetch "$base/$ref/SHA256SUMS" "$work/SHA256SUMS" || status=$?
if [ "$status" -eq 0 ]; then fetch "$base/$ref/$asset" "$work/$asset" || status=$?; fi
if [ "$status" -ne 0 ]; then
  [ "$status" -eq 3 ] && echo "no release $ref with $asset" >&2
  exit "$status"
fi

want="$(awk -v f="$asset" '$2 == f || $2 == "*"f { print $1; exit }' "$work/SHA256SUMS")"
if [ -z "$want" ]; then
  echo "SHA256SUMS of $ref does not list $asset" >&2
  exit 1
fi
if command -v sha256sum >/dev/null 2>&1; then
  got="$(sha256sum "$work/$asset" | awk '{print $1}')"
else
  got="$(shasum -a 256 "$work/$asset" | awk '{print $1}')"
fi
if [ "$got" != "$want" ]; then
  echo "checksum mismatch for $asset of $ref: expected $want, got $got; refusing to install" >&2
  exit 1
fi

dir="${SWARM_ATTACK_BIN_DIR:-$HOME/.swarm-attack/bin}"
mkdir -p "$dir"
tar -xzf "$work/$asset" -C "$work"
install -m 0755 "$work/swarm-attack" "$dir/swarm-attack"
echo "$dir/swarm-attack"
