#!/bin/sh
# stability.sh [VKINFER] [MODEL_DIR] [PROCESSES] [MODEL...]: is one process's latency
# every process's? For each model, PROCESSES (10) fresh `vkinfer bench` processes with
# default settings (100 runs after the warm-up until steady), each with a cold kernel
# cache (a new, empty --cache-dir: every kernel compiled first, the GPU idle meanwhile);
# then one `vkinfer tune` in a fresh process, whose before and after figures should agree
# with bench's. Prints one line per process (median, p90, p90 / median, warm-up) and per
# model the spread of the medians (worst / best) and the worst p90 / median. Where
# nvidia-smi is there, the GPU's SM clock is read before each model and after its last
# process. Models: the nine MediaPipe models of the speed issue, or those named.
set -u
V=${1:-build/vkinfer}
M=${2:-models/cache}
N=${3:-10}
[ $# -gt 3 ] && shift 3 || set --
models=${*:-face_detection_short_range face_detection_full_range face_detection_full_range_sparse
selfie_segmentation selfie_segmentation_landscape hand_landmark_lite hand_landmark_full
pose_landmark_lite pose_landmark_full}
clock() {
  command -v nvidia-smi >/dev/null 2>&1 &&
    echo "SM clock $(nvidia-smi --query-gpu=clocks.sm --format=csv,noheader | head -1)" ||
    echo "no clock reading"
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "$("$V" version) on $("$V" info | sed -n "s/^\* device 0: //p" | cut -d"(" -f1); $N processes a model; $(date -u +%Y-%m-%d)"
for model in $models; do
  m=$M/$model.tflite
  echo "== $model ($(clock))"
  : >"$tmp/medians"
  for p in $(seq "$N"); do
    rm -rf "$tmp/cache"
    # bench --csv fields from the end: steady, warmup_ms, warmup_runs, with_io, warmup,
    # runs, max, min, p90, p10, median, std, mean, first_run, build_cached, build_cold (the
    # device name may hold commas).
    "$V" bench "$m" --csv --cache-dir "$tmp/cache" 2>/dev/null | awk -F, -v p="$p" 'NR == 2 {
      printf "process %2d: median %.4f ms, p90 %.4f (%.2f x), build %.0f ms cold, warm-up %d runs in %.2f s%s\n",
        p, $(NF - 10), $(NF - 8), $(NF - 8) / $(NF - 10), $(NF - 15), $(NF - 2), $(NF - 1) / 1000,
        $NF == 1 ? ", steady" : ", NOT steady" }' | tee -a "$tmp/medians"
  done
  awk '{ m = $4 + 0; r = $8; sub(/\(/, "", r); r += 0
         if (best == "" || m < best) best = m; if (m > worst) worst = m; if (r > rat) rat = r }
       END { if (best > 0) printf "medians %.4f .. %.4f ms: worst / best %.3f; worst p90 / median %.2f\n",
             best, worst, worst / best, rat }' "$tmp/medians"
  rm -rf "$tmp/cache"
  "$V" tune "$m" --cache-dir "$tmp/cache" --tuning-file "$tmp/tune.txt" 2>/dev/null |
    sed -n 's/^.*: latency /tune: /p'
  rm -f "$tmp/tune.txt"
  echo "   after: $(clock)"
done
