#!/bin/sh
# demo.sh: the main job. Installs what is missing, builds, fetches the models and the
# photo (astronaut.png, public domain, from Debian's python3-skimage), and runs MediaPipe's
# face detector on the photo on the default Vulkan device (lavapipe when there is no GPU):
# the faces found in photo pixels, a picture with them boxed (faces.png, or --out FILE),
# and the latency of 50 runs after a warm-up until steady. Extra arguments go to `vkinfer run`.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/tools/setup.sh"
"$root/tools/fetch_models.sh"
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null
out=faces.png
for a in "$@"; do [ "$a" = --out ] && out=""; done
./build/vkinfer run models/cache/face_detection_short_range.tflite \
  --image models/cache/astronaut.png ${out:+--out "$out"} --warmup 10 --runs 50 "$@"
