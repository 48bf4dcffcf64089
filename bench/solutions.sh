#!/bin/sh
# solutions.sh [VKINFER] [MODEL_DIR] [ROUNDS]: the per-frame latency of MediaPipe's three
# solutions through `vkinfer run --detector` (detector + rotated crop + landmarks, outputs
# read back and decoded), 200 runs after 20 warm-ups on one photo with the detector each
# time (--runs 20 --warmup 3 on a CPU device: set RUNS and WARMUP), then 30 panning frames
# with tracking (the detector's rate). The frames are made from astronaut.png by
# tests/test_cli.py's PNG writer: a 448x448 window moving 2 px a frame right, then back.
# Hands run on camera.png (gloved hands: the palm detector finds one, the hand model gives
# it presence 0.002, so --threshold 1e-6 keeps the chain whole for timing).
set -eu
V=${1:-build/vkinfer}
M=${2:-models/cache}
ROUNDS=${3:-2}
RUNS=${RUNS:-200}
WARMUP=${WARMUP:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
frames=$(mktemp -d)
trap 'rm -rf "$frames"' EXIT
python3 - "$root/tests/test_cli.py" "$M/astronaut.png" "$frames" <<'PY'
import importlib.util, os, sys
sys.argv, (cli, photo, out) = ['x', 'x'], sys.argv[1:4]
spec = importlib.util.spec_from_file_location('tc', cli)
tc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tc)
w, h, rows = tc.png_pixels(photo)
for f in range(30):
    dx = 2 * (f if f < 15 else 30 - f)
    tc.png_write(os.path.join(out, 'f%02d.png' % f), 448, 448,
                 [rows[y][3 * dx:3 * (dx + 448)] for y in range(32, 480)])
PY
for round in $(seq "$ROUNDS"); do
  echo "== round $round"
  $V run "$M/face_landmark.tflite" --detector "$M/face_detection_short_range.tflite" \
    --image "$M/astronaut.png" --runs "$RUNS" --warmup "$WARMUP" | grep -E "latency|face 0"
  $V run "$M/hand_landmark_lite.tflite" --detector "$M/palm_detection_lite.tflite" \
    --image "$M/camera.png" --runs "$RUNS" --warmup "$WARMUP" --threshold 0.000001 |
    grep -E "latency|hand 0"
  $V run "$M/pose_landmark_lite.tflite" --detector "$M/pose_detection.tflite" \
    --image "$M/astronaut.png" --runs "$RUNS" --warmup "$WARMUP" | grep -E "latency|person 0"
  $V run "$M/face_landmark.tflite" --detector "$M/face_detection_short_range.tflite" \
    --frames "$frames" | grep -E "frames|latency"
  $V run "$M/pose_landmark_lite.tflite" --detector "$M/pose_detection.tflite" \
    --frames "$frames" | grep -E "frames|latency"
done
