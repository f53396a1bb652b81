#!/usr/bin/env bash
# Measures the Action's set-up: installing the prebuilt binary (install-action-binary.sh
# against a local HTTP server serving a fake release of BINARY) vs building from source
# (`cargo install --locked --path .` into a fresh CARGO_TARGET_DIR, only with
# --cargo-install: it takes many minutes).
#
# Usage: scripts/bench-action-setup.sh BINARY [RUNS] [--cargo-install]
#   BINARY  a release build of swarm-attack (e.g. target/release/swarm-attack)
#   RUNS    download installs to time (default 10); the median is printed
# Prints one line per measurement and the ratio cargo-install / download when both ran.
set -euo pipefail

bin="${1:?usage: bench-action-setup.sh BINARY [RUNS] [--cargo-install]}"
runs="${2:-10}"
with_cargo="${3:-}"
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

tag=v0.0.0-bench
target=x86_64-unknown-linux-musl
mkdir -p "$work/stage" "$work/www/$tag"
cp "$bin" "$work/stage/swarm-attack"
tar -C "$work/stage" -czf "$work/www/$tag/swarm-attack-$target.tar.gz" swarm-attack
(cd "$work/www/$tag" && sha256sum "swarm-attack-$target.tar.gz" > SHA256SUMS)
size="$(stat -c %s "$work/www/$tag/swarm-attack-$target.tar.gz")"

port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$work/www" >/dev/null 2>&1 &
server_pid=$!
for _ in $(seq 50); do
  curl -s -o /dev/null "http://127.0.0.1:$port/" && break
  sleep 0.1
done

times=()
for i in $(seq "$runs"); do
  rm -rf "$work/bin"
  start=$(date +%s%N)
  SWARM_ATTACK_REPO=octo/swarm-attack SWARM_ATTACK_REF="$tag" RUNNER_OS=Linux RUNNER_ARCH=X64 \
    SWARM_ATTACK_DOWNLOAD_BASE="http://127.0.0.1:$port" SWARM_ATTACK_BIN_DIR="$work/bin" \
    bash "$here/scripts/install-action-binary.sh" >/dev/null
  end=$(date +%s%N)
  "$work/bin/swarm-attack" --version >/dev/null
  times+=($(( (end - start) / 1000000 )))
done
median="$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
echo "download install: median ${median} ms over $runs runs (archive $size bytes, local server)"

if [ "$with_cargo" = "--cargo-install" ]; then
  start=$(date +%s%N)
  CARGO_TARGET_DIR="$work/target" cargo install --quiet --locked --path "$here" --root "$work/root"
  end=$(date +%s%N)
  cargo_ms=$(( (end - start) / 1000000 ))
  echo "cargo install (fresh target dir): ${cargo_ms} ms"
  echo "ratio cargo-install / download: $(( cargo_ms / (median > 0 ? median : 1) ))x"
fi
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
