#!/usr/bin/env bash
# Fetches axe-core, the accessibility checker the browser tests run in
# Chromium, from the npm registry into .cache/axe-core (not committed), and
# checks it against the integrity the registry published for this version.
# Prints the path of axe.min.js.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=4.14.1
INTEGRITY=sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ==
dir=.cache/axe-core-$VERSION

if [ ! -f "$dir/axe.min.js" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  curl -fsSL --retry 3 -o "$tmp/axe.tgz" "https://registry.npmjs.org/axe-core/-/axe-core-$VERSION.tgz"
  got="sha512-$(openssl dgst -sha512 -binary "$tmp/axe.tgz" | base64 -w0)"
  if [ "$got" != "$INTEGRITY" ]; then
    echo "axe-core $VERSION: the download does not match the registry's integrity" >&2
    exit 1
  fi
  tar -xzf "$tmp/axe.tgz" -C "$tmp" package/axe.min.js package/LICENSE
  mkdir -p "$dir"
  mv "$tmp/package/axe.min.js" "$tmp/package/LICENSE" "$dir/"
fi
echo "$PWD/$dir/axe.min.js"
