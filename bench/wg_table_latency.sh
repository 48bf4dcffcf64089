#!/bin/sh
# wg_table_latency.sh [VKINFER] [MODEL_DIR]: latency of the five public models with four
# work-group choices, in one run on the default device (fp32):
#   generic  one 8x8x1 size for every tunable dispatch (bench/tables/generic.txt)
#   old      the table before tuning runs (bench/tables/old.txt)
#   refined  the built-in table (tuner/wg_table.txt), no tuning; REFINED_TABLE=FILE puts
#            FILE's rows in front (rows a tuning run exported, before they are built in)
#   tuned    every dispatch tuned by local search on this device, starting from the
#            refined table (tuned first, untimed)
# Each model: three rounds, each timing the four in turn (`vkinfer bench`, RUNS runs after
# WARMUP warm-ups, default 100 and 10), so drift hits all alike. TUNED_DIR=DIR takes the
# tuned sizes from DIR/all.tune (a tuning file written by an earlier run, e.g. the one a
# table export tuned) instead of tuning each model first. Prints per model the median of the three round
# medians with their min-max, and the share of tuning's gain over the old table that the
# refined table gets: (old - refined) / (old - tuned).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
vkinfer=${1:-$root/build/vkinfer}
models=${2:-$root/models/cache}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
none=$tmp/none.txt          # no tuning file: the table's sizes
refined=""
[ -n "${REFINED_TABLE:-}" ] && refined="--workgroup-table $REFINED_TABLE"
# bench --csv: median_ms is the 11th field from the end (the device name may hold commas).
median() { awk -F, 'NR == 2 { print $(NF - 10) }'; }
bench() { "$vkinfer" bench "$@" --runs "${RUNS:-100}" --warmup "${WARMUP:-10}" --csv 2>/dev/null | median; }
"$vkinfer" info | sed -n 's/^\* /# device: /p' | head -1
printf '%-28s %-22s %-22s %-22s %-22s %s\n' model generic old refined tuned refined_share
for model in face_detection_short_range face_detection_full_range selfie_segmentation \
             hand_landmark_lite pose_landmark_lite; do
  m=$models/$model.tflite
  if [ -n "${TUNED_DIR:-}" ]; then
    cp "$TUNED_DIR/all.tune" "$tmp/$model.tune"
  else
    "$vkinfer" tune "$m" --tuning-file "$tmp/$model.tune" --runs 5 --warmup 1 $refined >/dev/null 2>&1 || exit 1
  fi
  g="" o="" r="" t=""
  for round in 1 2 3; do
    g="$g $(bench "$m" --tuning-file "$none" --workgroup-table "$root/bench/tables/generic.txt")"
    o="$o $(bench "$m" --tuning-file "$none" --workgroup-table "$root/bench/tables/old.txt")"
    r="$r $(bench "$m" --tuning-file "$none" $refined)"
    t="$t $(bench "$m" --tuning-file "$tmp/$model.tune" $refined)"
  done
  python3 - "$model" "$g" "$o" "$r" "$t" <<'PY'
import statistics, sys
name, *cols = sys.argv[1:]
vals = [[float(v) for v in c.split()] for c in cols]
med = [statistics.median(v) for v in vals]
cells = ['%.3f (%.3f-%.3f)' % (m, min(v), max(v)) for m, v in zip(med, vals)]
gain = med[1] - med[3]
share = '%.2f' % ((med[1] - med[2]) / gain) if abs(gain) > 1e-9 else 'n/a'
print('%-28s %-22s %-22s %-22s %-22s %s' % (name, *cells, share))
PY
done
