#!/bin/sh
# fetch_models.sh [DIR]: fetches MediaPipe's float .tflite models from their npm packages
# into DIR (default models/cache), checking the sha256 of every package and model, and
# the photos the demo and the solutions run on (astronaut.png, camera.png, hand.jpg) from
# Debian packages, and LiteRT for the graph tester (DIR/litert). Models packed into
# a package's emscripten asset bundle (palm detection, face mesh, pose detection) are cut
# out of it at the offsets its loader script gives.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/models/cache}
mkdir -p "$dir"
manifest="$root/models/models.sha256"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The photos, each cut out of a Debian 12 package and checked against its sha256:
# - astronaut.png (public domain, NASA) and camera.png (a man with a camera in gloved hands;
#   CC0, Lav Varshney, as skimage/data/_fetchers.py says), from python3-skimage's sample data;
# - hand.jpg (a bare open hand seen from the palm; opencv-doc's handSrc.jpg, which Debian
#   ships under OpenCV's licence, Apache-2.0), from the opencv-doc package (95 MB; only
#   that file is unpacked, and only when it is missing).
# photo NAME PACKAGE PATH: copies PATH (inside PACKAGE's .deb) to DIR/NAME unless it is there.
photo() {
  sum=$(awk -v f="$1" '$2 == f {print $1}' "$manifest")
  [ -f "$dir/$1" ] && echo "$sum  $dir/$1" | sha256sum -c --quiet - >/dev/null 2>&1 && return 0
  if ! ls "$tmp/$2"_*.deb >/dev/null 2>&1; then
    (cd "$tmp" && { apt-get download "$2" >/dev/null 2>&1 ||
                    { apt-get update -qq && apt-get download "$2" >/dev/null; }; }) || {
      echo "fetch_models: apt-get download $2 failed" >&2; exit 1; }
  fi
  dpkg-deb --fsys-tarfile "$tmp/$2"_*.deb | tar -xO "./$3" >"$tmp/$1" 2>/dev/null &&
    echo "$sum  $tmp/$1" | sha256sum -c --quiet - || {
    echo "fetch_models: $3 from $2 is missing or its sha256 differs" >&2; exit 1; }
  cp "$tmp/$1" "$dir/$1"
  chmod 644 "$dir/$1"
}
skimage=usr/lib/python3/dist-packages/skimage/data
photo astronaut.png python3-skimage $skimage/astronaut.png
photo camera.png python3-skimage $skimage/camera.png
photo hand.jpg opencv-doc usr/share/doc/opencv-doc/opencv4/html/handSrc.jpg

# LiteRT (TFLite's interpreter as wasm) for the graph tester (tests/graphs/fuzz.py): npm ci
# installs exactly tests/graphs/litert/package-lock.json, checking every package's sha512.
litert=$dir/litert
if ! cmp -s "$root/tests/graphs/litert/package-lock.json" "$litert/package-lock.json" ||
   [ ! -f "$litert/node_modules/@litertjs/core/package.json" ]; then
  command -v npm >/dev/null || { echo "fetch_models: npm is missing (run tools/setup.sh)" >&2; exit 1; }
  rm -rf "$litert"
  mkdir -p "$litert"
  cp "$root/tests/graphs/litert/package.json" "$root/tests/graphs/litert/package-lock.json" "$litert/"
  (cd "$litert" && npm ci --no-audit --no-fund >"$tmp/npm-litert.log" 2>&1) || {
    echo "fetch_models: npm ci of LiteRT failed:" >&2; tail -5 "$tmp/npm-litert.log" >&2; exit 1; }
fi

have_all=1
while read -r sum file; do
  case "$file" in *.tflite) ;; *) continue ;; esac
  [ -f "$dir/$file" ] && echo "$sum  $dir/$file" | sha256sum -c --quiet - 2>/dev/null || have_all=0
done < "$manifest"
[ "$have_all" = 1 ] && exit 0

command -v npm >/dev/null || { echo "fetch_models: npm is missing (run tools/setup.sh)" >&2; exit 1; }
for pkg in @mediapipe/face_detection@0.4.1657300184 @mediapipe/selfie_segmentation@0.1.1675465747 \
           @mediapipe/hands@0.4.1675469240 @mediapipe/pose@0.5.1675469404 \
           @mediapipe/face_mesh@0.4.1657299874; do
  (cd "$tmp" && npm pack "$pkg" >/dev/null 2>"$tmp/npm.log") || {
    echo "fetch_models: npm pack $pkg failed:" >&2
    tail -5 "$tmp/npm.log" >&2
    exit 1; }
done
(cd "$tmp" && grep '\.tgz$' "$manifest" | sha256sum -c --quiet -) || {
  echo "fetch_models: a package's sha256 does not match models/models.sha256" >&2; exit 1; }
for tgz in "$tmp"/*.tgz; do
  tar xzf "$tgz" -C "$tmp" --strip-components=1
done
# Bundled models: the loader script lists each file as
#   {"filename": "/.../NAME.tflite", "start": N, "end": M, ...}
for js in "$tmp"/*_packed_assets_loader.js; do
  [ -f "$js" ] || continue
  data=${js%_loader.js}.data
  grep -o '"filename": *"[^"]*\.tflite", *"start": *[0-9]*, *"end": *[0-9]*' "$js" |
    sed 's|.*/\([^/"]*\.tflite\)", *"start": *\([0-9]*\), *"end": *\([0-9]*\)|\1 \2 \3|' |
    while read -r name start end; do
      [ -e "$tmp/$name" ] && continue
      tail -c +"$((start + 1))" "$data" | head -c "$((end - start))" >"$tmp/$name"
    done
done
grep '\.tflite$' "$manifest" | while read -r sum file; do
  echo "$sum  $tmp/$file" | sha256sum -c --quiet - || { echo "fetch_models: $file sha256 mismatch" >&2; exit 1; }
  cp "$tmp/$file" "$dir/$file"
  chmod 644 "$dir/$file"
done

echo "fetch_models: models and photos in $dir"
