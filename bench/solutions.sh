#!/bin/sh
# solutions.sh [VKINFER] [MODEL_DIR] [ROUNDS]: the per-frame latency of MediaPipe's three
# solutions through `vkinfer run --detector` (detector + rotated crop + landmarks, outputs
# read back and decoded), 200 runs after 20 warm-ups on one photo with the detector each
# time (--runs 20 --warmup 3 on a CPU device: set RUNS and WARMUP), then 30 frames with
# tracking (the detector's rate). Face mesh and pose run on astronaut.png, hands on
# hand.jpg. The frames are made by tests/test_cli.py's PNG writer: a window moving 2 px a
# frame right, then back, over astronaut.png (448x448) and over hand.jpg (560x440, as
# vkinfer decodes it: drawn with nothing found). Hands track with --num 1: with MediaPipe's
# default of two hands the detector runs on every frame that shows one.
set -eu
V=${1:-build/vkinfer}
M=${2:-models/cache}
ROUNDS=${3:-2}
RUNS=${RUNS:-200}
WARMUP=${WARMUP:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
frames=$(mktemp -d)
trap 'rm -rf "$frames"' EXIT
mkdir "$frames/face" "$frames/hand"
$V run "$M/hand_landmark_lite.tflite" --detector "$M/palm_detection_lite.tflite" \
  --image "$M/hand.jpg" --threshold 1 --out "$frames/hand.png" >/dev/null
python3 - "$root/tests/test_cli.py" "$M/astronaut.png" "$frames" <<'PY'
import importlib.util, os, sys
sys.argv, (cli, photo, out) = ['x', 'x'], sys.argv[1:4]
spec = importlib.util.spec_from_file_location('tc', cli)
tc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tc)
for name, path, w, h, y0 in (('face', photo, 448, 448, 32),
                             ('hand', os.path.join(out, 'hand.png'), 560, 440, 20)):
    _, _, rows = tc.png_pixels(path)
    tc.pan_frames(os.path.join(out, name), rows, w, h, y0,
                  [2 * (f if f < 15 else 30 - f) for f in range(30)])
PY
for round in $(seq "$ROUNDS"); do
  echo "== round $round"
  $V run "$M/face_landmark.tflite" --detector "$M/face_detection_short_range.tflite" \
    --image "$M/astronaut.png" --runs "$RUNS" --warmup "$WARMUP" | grep -E "latency|face 0"
  $V run "$M/hand_landmark_lite.tflite" --detector "$M/palm_detection_lite.tflite" \
    --image "$M/hand.jpg" --runs "$RUNS" --warmup "$WARMUP" | grep -E "latency|hand 0"
  $V run "$M/pose_landmark_lite.tflite" --detector "$M/pose_detection.tflite" \
    --image "$M/astronaut.png" --runs "$RUNS" --warmup "$WARMUP" | grep -E "latency|person 0"
  $V run "$M/face_landmark.tflite" --detector "$M/face_detection_short_range.tflite" \
    --frames "$frames/face" | grep -E "frames|latency"
  $V run "$M/hand_landmark_lite.tflite" --detector "$M/palm_detection_lite.tflite" \
    --frames "$frames/hand" --num 1 | grep -E "frames|latency"
  $V run "$M/pose_landmark_lite.tflite" --detector "$M/pose_detection.tflite" \
    --frames "$frames/face" | grep -E "frames|latency"
done
