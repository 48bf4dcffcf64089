#!/bin/sh
# memory_vs_ncnn.sh NCNN_DIR [VKINFER] [MODEL_DIR] [MODEL...]: device memory of vkinfer and
# ncnn on the same graphs, as the driver sees it. For each model (default: the five with
# TFLite references in tests/data/ref), each engine runs alone for a few seconds (vkinfer
# bench, ncnn's ncnn_bench.sh --mode vulkan, fp32, 1000 runs) while nvidia-smi samples the
# GPU's memory.used every 20 ms; the figure is the peak above the idle reading before it,
# so it holds everything the process holds on the device: weights, intermediates, I/O,
# staging, pipelines, descriptor pools and the driver's own. vkinfer's own report (weights,
# intermediates, I/O, staging, frames) is printed beside it. Needs nvidia-smi (an NVIDIA
# GPU); NCNN_DIR is a copy of the peer's folder (ncnn_bench.sh and its runner).
set -u
[ $# -ge 1 ] || { echo "usage: memory_vs_ncnn.sh NCNN_DIR [VKINFER] [MODEL_DIR] [MODEL...]" >&2; exit 2; }
command -v nvidia-smi >/dev/null 2>&1 || { echo "memory_vs_ncnn.sh: needs nvidia-smi" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
peer=$1
V=${2:-$root/build/vkinfer}
M=${3:-$root/models/cache}
[ $# -gt 3 ] && shift 3 || set --
models=${*:-face_detection_short_range face_detection_full_range selfie_segmentation hand_landmark_lite pose_landmark_lite}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
used() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | head -1; }
# peak COMMAND...: runs it in the background, samples memory.used until it ends, prints the
# peak above the reading before it (MiB).
peak() {
  sleep 1
  idle=$(used)
  "$@" >"$tmp/out" 2>&1 &
  pid=$!
  top=$idle
  while kill -0 "$pid" 2>/dev/null; do
    u=$(used)
    [ "$u" -gt "$top" ] && top=$u
    sleep 0.02
  done
  wait "$pid" || echo "(failed: $(tail -1 "$tmp/out"))" >&2
  echo $((top - idle))
}
echo "device memory above idle (nvidia-smi memory.used, MiB, peak of 20 ms samples); $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(date -u +%Y-%m-%d)"
printf '%-28s %10s %10s   %s\n' model vkinfer ncnn "vkinfer's own report"
for m in $models; do
  vk=$(peak "$V" bench "$M/$m.tflite" --runs 1000 --warmup-ms 1000)
  own=$("$V" run "$M/$m.tflite" | sed -n 's/^memory: //p')
  nc=$(peak sh "$peer/ncnn_bench.sh" "$M" "$root/tests/data/ref" --models "$m" --mode vulkan \
         --runs 1000 --warmup 100 --keep "$tmp/ncnn")
  printf '%-28s %10s %10s   %s\n' "$m" "$vk" "$nc" "$own"
done
