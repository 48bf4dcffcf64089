#!/bin/sh
# fuzz.sh [SECONDS]: runs the loader's libFuzzer target (tests/fuzz_loader.c) for SECONDS
# (default 60). Installs clang if it is missing, builds the target with clang,
# AddressSanitizer and UBSan into build-fuzz/, writes the seed corpus from
# face_detection_short_range, an int8 model and a transformer block
# (tests/make_fuzz_corpus.sh), fuzzes, and prints the number of
# inputs executed. Exits non-zero on a crash, a leak or undefined behaviour; the input
# that caused it is kept in build-fuzz/artifacts/. Inputs that reach new code are kept in
# build-fuzz/corpus/ and seed the next run.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-60}
case "$seconds" in ''|*[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;; esac

"$root/tools/setup.sh"
if ! command -v clang >/dev/null 2>&1; then
  echo "fuzz: installing clang"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends clang >/dev/null
fi
"$root/tools/fetch_models.sh"

dir=build-fuzz
[ -f "$dir/build.ninja" ] || CC=clang meson setup "$dir" -Dfuzz=true -Dtests=false >/dev/null
ninja -C "$dir" tests/fuzz_loader >/dev/null
# Seeds: a float MediaPipe model, an int8 model (quantization parameters, QUANTIZE steps)
# and a transformer block (rank 3-5 tensors, the general ops), each with damaged copies.
seed_from() {  # seed_from MODEL DIR
  [ -n "$(ls -A "$2" 2>/dev/null)" ] || tests/make_fuzz_corpus.sh "$1" "$2" >/dev/null
}
seed_from models/cache/face_detection_short_range.tflite "$dir/seed"
seed_from tests/data/quant/int8_cnn.tflite "$dir/seed_int8"
seed_from tests/data/op_models/block_transformer.tflite "$dir/seed_general"
mkdir -p "$dir/corpus" "$dir/artifacts"

log="$dir/fuzz.log"
echo "fuzz: tests/fuzz_loader for ${seconds}s (log in $log)"
status=0
"$dir/tests/fuzz_loader" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 \
  -artifact_prefix="$dir/artifacts/" "$dir/corpus" "$dir/seed" "$dir/seed_int8" \
  "$dir/seed_general" >"$log" 2>&1 || status=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
echo "fuzz: ${execs:-?} inputs executed in ${seconds}s, corpus $(find "$dir/corpus" -type f | wc -l) files"
if [ "$status" -ne 0 ]; then
  echo "fuzz: FAILED (exit $status):" >&2
  grep -E 'ERROR|SUMMARY|runtime error|Test unit written|^==[0-9]+==' "$log" | head -20 >&2
  exit 1
fi
