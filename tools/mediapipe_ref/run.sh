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

# astronaut.png and camera.png: fetch_models.sh takes them from python3-skimage.
[ -f "$cache/astronaut.png" ] && [ -f "$cache/camera.png" ] || sh "$root/tools/fetch_models.sh"
# handSrc.jpg (640x480, an open hand): from Debian 12's opencv-doc package.
hand=$here/photos/handSrc.jpg
sum=088532ab39ada21d9e332fa576d01d516bf4b8999c54a2c75665b35989f197fd
if ! echo "$sum  $hand" | sha256sum -c --quiet - >/dev/null 2>&1; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && apt-get download opencv-doc >/dev/null 2>&1 ||
     { apt-get update -qq && apt-get download opencv-doc >/dev/null; })
  mkdir -p "$here/photos"
  dpkg-deb --fsys-tarfile "$tmp"/opencv-doc_*.deb |
    tar -xO ./usr/share/doc/opencv-doc/opencv4/html/handSrc.jpg > "$hand"
  echo "$sum  $hand" | sha256sum -c --quiet - || {
    echo "run.sh: handSrc.jpg from opencv-doc differs" >&2; exit 1; }
fi

mkdir -p "$out"
node "$here/run.mjs" "$out" "$cache/astronaut.png" "$cache/camera.png" "$hand"
