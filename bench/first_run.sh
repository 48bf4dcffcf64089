#!/bin/sh
# first_run.sh: graph build time, first run and median run of each model, with and without
# the warm-up run inside vki_graph_create (vki_graph_options.warm_up, `--no-warm-up`), cold
# (no vkinfer cache, the driver's shader cache off: every kernel compiled) and warm (both caches
# filled by an earlier run). Prints one markdown row per model, mode and cache state.
#
#   sh bench/first_run.sh [VKINFER] [RUNS] MODEL...
# VKINFER defaults to build/vkinfer, RUNS (timed runs after the first) to 20.
set -eu
bin=${1:-build/vkinfer}; shift || true
runs=${1:-20}; shift || true
[ $# -gt 0 ] || set -- models/cache/face_detection_short_range.tflite
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
row() {  # model, label, extra flags...
  m=$1; label=$2; shift 2
  "$bin" run "$m" --runs "$runs" --warmup 0 --json "$@" 2>/dev/null | python3 -c '
import json, sys
t = json.load(sys.stdin)["timings_ms"]
print("| %s | %s | %.1f | %.2f | %.2f | %.2f |" % (sys.argv[1], sys.argv[2], t["build"], t["first_run"],
      t["median"], t["first_run"] / t["median"]))' "$(basename "$m" .tflite)" "$label"
}
echo "| model | build | built in ms | first run ms | median ms | first / median |"
echo "|---|---|---|---|---|---|"
for m in "$@"; do
  for mode in "" --no-warm-up; do
    name=${mode:-warm-up}; name=${name#--}
    MESA_SHADER_CACHE_DISABLE=true __GL_SHADER_DISK_CACHE=0 row "$m" "$name, cold" --no-cache $mode
    rm -rf "$cache"/*
    row "$m" "$name, fill caches" --cache-dir "$cache" $mode >/dev/null
    row "$m" "$name, caches warm" --cache-dir "$cache" $mode
  done
done
