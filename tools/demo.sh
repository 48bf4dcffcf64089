#!/bin/sh
# demo.sh: the main job. Installs what is missing, builds, fetches the models, and runs
# face_detection_short_range on the default Vulkan device (lavapipe when there is no GPU):
# each output's name, shape and first values, and the latency of 50 runs after 10 warm-ups.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/tools/setup.sh"
"$root/tools/fetch_models.sh"
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null
./build/vkinfer run models/cache/face_detection_short_range.tflite --warmup 10 --runs 50 "$@"
