#!/bin/sh
# tune.sh [VKINFER] [MODEL_DIR] [TUNING_FILE]: tunes the five conformance models' work
# groups on the default device (fp32), then compares the family table's sizes with the
# tuned ones: three alternating rounds of 100 runs after 10 warm-ups each, so that drift
# hits both alike. Prints the tuning summary and each round's median.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
vkinfer=${1:-$root/build/vkinfer}
models=${2:-$root/models/cache}
file=${3:-${TMPDIR:-/tmp}/vkinfer.tune}
# bench --csv: median_ms is the 11th field from the end (the device name may hold commas).
median() { awk -F, 'NR == 2 { print $(NF - 10) }'; }
for model in face_detection_short_range face_detection_full_range selfie_segmentation \
             hand_landmark_lite pose_landmark_lite; do
  m=$models/$model.tflite
  start=$(date +%s)
  summary=$("$vkinfer" run "$m" --tune --tuning-file "$file" | sed -n 's/^tuning: //p')
  echo "$model: tuned in $(( $(date +%s) - start )) s: $summary"
  table="" tuned=""
  for round in 1 2 3; do
    table="$table $("$vkinfer" bench "$m" --csv | median)"
    tuned="$tuned $("$vkinfer" bench "$m" --tuning-file "$file" --csv | median)"
  done
  echo "$model: table medians (ms):$table; tuned medians (ms):$tuned"
done
