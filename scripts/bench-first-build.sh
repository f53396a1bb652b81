#!/usr/bin/env bash
# Measures a first build as a newcomer gets it: a clean `cargo build --locked --timings` (the
# binary README's `cargo run --locked -- demo` needs) of a reference commit (the anchor,
# default `main`) and of the working tree, each in an empty CARGO_TARGET_DIR, with the crates
# already downloaded. Prints, for each: wall, user and sys seconds, the compilation units,
# the lines of `cargo tree -e normal`, the `--timings` top 10; then the ratios tree/anchor.
#
# Usage: scripts/bench-first-build.sh [ANCHOR]     (run it on a quiet machine: it takes
#        two clean builds, several minutes each on two cores)
# Needs: git, cargo, python3, /usr/bin/time. Uses $TMPDIR (about 3 GB per build), removed
# at the end.
set -euo pipefail

anchor="${1:-main}"
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
cleanup() { rm -rf "$work"; }
trap cleanup EXIT

cargo fetch --locked --manifest-path "$here/Cargo.toml" >/dev/null 2>&1
mkdir -p "$work/anchor-src"
git -C "$here" archive "$anchor" | tar -x -C "$work/anchor-src"
(cd "$work/anchor-src" && cargo fetch --locked >/dev/null 2>&1)

measure() { # name source-dir
  local name="$1" src="$2" target="$work/target-$1"
  echo "== $name ($(uptime | sed 's/.*load/load/'))"
  (cd "$src" && CARGO_TARGET_DIR="$target" /usr/bin/time -f '%e %U %S' -o "$work/$name.time" \
    cargo build --locked --timings >"$work/$name.log" 2>&1)
  read -r wall user sys <"$work/$name.time"
  local units tree
  units="$(grep -c '^ *Compiling ' "$work/$name.log" || true)"
  tree="$(cd "$src" && cargo tree -e normal 2>/dev/null | wc -l)"
  echo "$name wall_s=$wall user_s=$user sys_s=$sys units=$units tree_lines=$tree"
  echo "$wall $user $sys $units $tree" >"$work/$name.sum"
  python3 - "$target/cargo-timings/cargo-timing.html" <<'EOF'
import json, re, sys
html = open(sys.argv[1]).read()
m = re.search(r"const UNIT_DATA = (\[.*?\n\]);", html, re.S)
units = json.loads(m.group(1)) if m else []
top = sorted(units, key=lambda u: -u["duration"])[:10]
print("top 10: " + ", ".join(f"{u['name']} {u['duration']:.1f}" for u in top))
EOF
  rm -rf "$target"
}

measure anchor "$work/anchor-src"
measure tree "$here"
read -r aw au as _ _ <"$work/anchor.sum"
read -r tw tu ts _ _ <"$work/tree.sum"
python3 -c "
aw, au, as_, tw, tu, ts = map(float, '$aw $au $as $tw $tu $ts'.split())
print(f'ratio tree/anchor: wall {tw/aw:.2f}x, cpu (user+sys) {(tu+ts)/(au+as_):.2f}x')
"
