#!/bin/sh
# kernel_rates.sh [--vkinfer BIN] [--model-dir DIR] [--runs N] [--fma-gflops R] [MODEL...]
#
# The FLOP rate of each kernel class on the default device, over the models given (default:
# the nine MediaPipe models of the speed issue): `vkinfer run --profile --json` per model
# (the profile of the last of N runs after the warm-up until steady), then per kernel and
# variant the GPU time, the floating-point operations vki_graph_dispatch_flops counts
# (2 per multiply-add of the convolutions, FULLY_CONNECTED, TRANSPOSE_CONV, BATCH_MATMUL)
# and their ratio, beside the device's FMA rate where given (--fma-gflops, from
# ../shared/probe: about 70-100 on lavapipe with 2 cores, 65900 on an H100). Prints one
# markdown table over all models and one line per model.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
vkinfer=$root/build/vkinfer
modeldir=$root/models/cache
runs=20
fma=""
while [ $# -gt 0 ]; do
  case "$1" in
    --vkinfer) vkinfer=$2; shift 2;;
    --model-dir) modeldir=$2; shift 2;;
    --runs) runs=$2; shift 2;;
    --fma-gflops) fma=$2; shift 2;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0;;
    -*) echo "kernel_rates.sh: unknown option $1" >&2; exit 2;;
    *) break;;
  esac
done
models=${*:-"face_detection_short_range face_detection_full_range face_detection_full_range_sparse
  selfie_segmentation selfie_segmentation_landscape hand_landmark_lite hand_landmark_full
  pose_landmark_lite pose_landmark_full"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for m in $models; do
  if ! "$vkinfer" run "$modeldir/$m.tflite" --profile --json --runs "$runs" > "$tmp/$m.json" \
       2> "$tmp/$m.err"; then
    echo "kernel_rates.sh: $m: $(tail -1 "$tmp/$m.err")" >&2
    status=1
  fi
done
python3 - "$tmp" "$fma" $models <<'PY'
import json, os, sys
tmp, fma, models = sys.argv[1], sys.argv[2], sys.argv[3:]
fma = float(fma) if fma else None
tot = {}
device = "?"
for m in models:
    path = os.path.join(tmp, m + ".json")
    try:
        r = json.load(open(path))
    except (OSError, ValueError):
        continue
    device = r.get("device", device)
    ms = r.get("gpu_total_ms", 0.0)
    fl = r.get("gpu_total_flops", 0.0)
    print("%s: %d dispatches, %.3f ms GPU, %.1f MFLOP, %.1f GFLOP/s" %
          (m, len(r["profile"]), ms, fl / 1e6, fl / (ms * 1e6) if ms else 0.0))
    for d in r["profile"]:
        for key in {(d["kernel"], ""), (d["kernel"], d["variant"])}:
            t = tot.setdefault(key, [0, 0.0, 0.0])
            t[0] += 1
            t[1] += d["ms"]
            t[2] += d.get("flops", 0.0)
print()
print("device: %s; %d models" % (device, len(models)))
print()
head = "| kernel | variant | dispatches | GPU ms | MFLOP | GFLOP/s |"
print(head + (" of the FMA rate |" if fma else ""))
print("|---" * (6 + (1 if fma else 0)) + "|")
for (k, v), (n, ms, fl) in sorted(tot.items(), key=lambda kv: (-tot[(kv[0][0], "")][1], kv[0][1])):
    if v == "" and any(kk == k and vv for (kk, vv) in tot):
        label = "(all)"
    elif v == "":
        label = "-"
    else:
        label = v
    rate = fl / (ms * 1e6) if ms and fl else 0.0
    row = "| %s | %s | %d | %.3f | %.1f | %s |" % (k, label, n, ms, fl / 1e6,
                                                  "%.1f" % rate if fl else "-")
    if fma:
        row += " %s |" % ("%.0f%%" % (100 * rate / fma) if fl else "-")
    print(row)
PY
exit $status
