#!/bin/sh
# output_digest.sh [VKINFER] [MODEL_DIR]: one sha256 per model, precision and memory
# strategy over every output of every MediaPipe model on the default device (reference
# inputs where tests/data/ref has them, the generator's otherwise). Two builds that print
# the same lines give bit-identical outputs; a refactor is checked by diffing them.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
vkinfer=${1:-$root/build/vkinfer}
models=${2:-$root/models/cache}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for path in "$models"/*.tflite; do
  model=$(basename "$path" .tflite)
  input=""
  [ -f "$root/tests/data/ref/$model/input_0.f32" ] && input="--input $root/tests/data/ref/$model/input_0.f32"
  for precision in fp32 fp16 fp16-storage; do
    flag=""
    [ "$precision" = fp32 ] || flag=--$precision
    for memory in ${MEMORY:-best naive arena}; do
      rm -rf "$tmp/out"
      # shellcheck disable=SC2086
      "$vkinfer" run "$path" $input $flag --memory "$memory" --runs 1 --warmup 0 --save "$tmp/out" >/dev/null
      echo "$model $precision $memory $(cat "$tmp"/out/output_*.f32 | sha256sum | cut -c1-16)"
    done
  done
done
