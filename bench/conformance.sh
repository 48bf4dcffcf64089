#!/bin/sh
# conformance.sh [VKINFER] [MODEL_DIR]: runs the five conformance models on the default
# device in fp32, fp16 (fp16 arithmetic where the device has it) and fp16 storage, checks
# every output against the TFLite interpreter's (tests/data/ref) and reports latency as
# the median and spread of 100 runs after 10 warm-ups. The fp16 runs keep fp32 the ops
# `vkinfer calibrate` names on the generated input (1e-2 against fp32), which is not the
# reference input. Prints one line per model and precision; exits non-zero on any failure.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
vkinfer=${1:-$root/build/vkinfer}
models=${2:-$root/models/cache}
runs=${RUNS:-100}
extra=${VKI_RUN_FLAGS:-}     # e.g. --spin
warmup=${WARMUP:-10}
status=0
for model in face_detection_short_range face_detection_full_range selfie_segmentation \
             hand_landmark_lite pose_landmark_lite; do
  ref=$root/tests/data/ref/$model
  tol32=1e-4
  [ "$model" = pose_landmark_lite ] && tol32=5e-4
  for precision in fp32 fp16 fp16-storage; do
    tol=$tol32
    flag=""
    keep=""
    if [ "$precision" != fp32 ]; then
      tol=3e-2
      flag=--$precision
      keep=$("$vkinfer" calibrate "$models/$model.tflite" $flag $extra 2>&1 | sed -n 's/^--fp32-ops //p')
      [ -n "$keep" ] && flag="$flag --fp32-ops $keep"
    fi
    out=$("$vkinfer" run "$models/$model.tflite" --input "$ref/input_0.f32" --check "$ref" \
          --tolerance "$tol" --runs "$runs" --warmup "$warmup" $flag $extra 2>&1)
    rc=$?
    latency=$(echo "$out" | sed -n 's/^latency: //p')
    errors=$(echo "$out" | sed -n "s/^output \([0-9]*\) '\([^']*\)' .*check: error \([^ ]*\).*/\2=\3/p" | tr '\n' ' ')
    [ -n "$errors" ] || { rc=1; echo "$model: no check line in vkinfer's output"; }
    if [ $rc -eq 0 ]; then verdict=ok; else verdict=FAIL; status=1; fi
    mixed=$(echo "$out" | sed -n 's/^precision: \([0-9]* of [0-9]* ops fp16\).*/; \1/p')
    [ "$precision" != fp32 ] && [ -n "$keep" ] && mixed="$mixed (fp32 ops $keep)"
    echo "$model $precision: $verdict; $latency; errors: $errors$mixed"
    [ $rc -eq 0 ] || echo "$out" | grep -E 'vkinfer:|FAIL' | head -5 | sed 's/^/    /'
  done
done
exit $status
