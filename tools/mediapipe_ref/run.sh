#!/bin/sh
# run.sh: runs MediaPipe's own solutions (the npm packages' face mesh, pose and hands, in
# headless Chromium with software WebGL2) on the test photos and writes their landmarks to
# tests/data/mediapipe/*.json, an independent reference for vkinfer's. Run by hand, not by
# CI: it installs chromium (apt-get) and the pinned npm packages (npm ci).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=$root/models/cache
out=$root/tests/data/mediapipe

command -v chromium >/dev/null 2>&1 || {
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; }
(cd "$here" && npm ci --no-audit --no-fund)

# The photos: fetch_models.sh takes them from Debian packages, checking their sha256.
[ -f "$cache/astronaut.png" ] && [ -f "$cache/camera.png" ] && [ -f "$cache/hand.jpg" ] ||
  sh "$root/tools/fetch_models.sh"

mkdir -p "$out"
node "$here/run.mjs" "$out" "$cache/astronaut.png" "$cache/camera.png" "$cache/hand.jpg"
