#!/bin/sh
# fetch_models.sh [DIR]: fetches MediaPipe's float .tflite models from their npm packages
# into DIR (default models/cache), checking the sha256 of every package and model.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/models/cache}
mkdir -p "$dir"
manifest="$root/models/models.sha256"

have_all=1
while read -r sum file; do
  case "$file" in *.tflite) ;; *) continue ;; esac
  [ -f "$dir/$file" ] && echo "$sum  $dir/$file" | sha256sum -c --quiet - 2>/dev/null || have_all=0
done < "$manifest"
[ "$have_all" = 1 ] && exit 0

command -v npm >/dev/null || { echo "fetch_models: npm is missing (run tools/setup.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for pkg in @mediapipe/face_detection@0.4.1657300184 @mediapipe/selfie_segmentation@0.1.1675465747 \
           @mediapipe/hands@0.4.1675469240 @mediapipe/pose@0.5.1675469404; do
  (cd "$tmp" && npm pack "$pkg" >/dev/null 2>"$tmp/npm.log") || {
    echo "fetch_models: npm pack $pkg failed:" >&2
    tail -5 "$tmp/npm.log" >&2
    exit 1; }
done
(cd "$tmp" && grep '\.tgz$' "$manifest" | sha256sum -c --quiet -) || {
  echo "fetch_models: a package's sha256 does not match models/models.sha256" >&2; exit 1; }
for tgz in "$tmp"/*.tgz; do
  tar xzf "$tgz" -C "$tmp" --strip-components=1 --wildcards 'package/*.tflite'
done
grep '\.tflite$' "$manifest" | while read -r sum file; do
  echo "$sum  $tmp/$file" | sha256sum -c --quiet - || { echo "fetch_models: $file sha256 mismatch" >&2; exit 1; }
  cp "$tmp/$file" "$dir/$file"
  chmod 644 "$dir/$file"
done
echo "fetch_models: models in $dir"
