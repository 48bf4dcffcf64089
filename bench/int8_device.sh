#!/bin/sh
# int8_device.sh [--rounds N] [--runs N] [--warmup N] BUNDLE_DIR NCNN_DIR OUT_DIR
#
# The int8 checks and timings on a machine that has a Vulkan driver but no build tools.
# BUNDLE_DIR holds vkinfer, tests/test_int8, tests/test_quant, tests/test_dwpw (built
# elsewhere, the shared libraries they need in lib/) and optionally probe/ (vkprobe with
# copy.spv and fma.spv, ../shared/probe). Writes to OUT_DIR:
#   tests.log        the three suites against LiteRT's stored outputs (0 LSB, every
#                    precision), with a context without integer dot products too
#   probe.txt        the device floor: dispatch cost, bandwidth, FMA rate
#   int8_vs_float.md bench/int8_models.py's networks against their float twins and ncnn
#                    (bench/int8_vs_float.sh --ncnn NCNN_DIR), fp32 and fp16
# Exit status: nonzero if a suite failed.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=2 runs=200 warmup=20
while [ $# -gt 3 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    *) echo "int8_device.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# -eq 3 ] || { sed -n '2p' "$0" | sed 's/^# //' >&2; exit 2; }
bundle=$(cd "$1" && pwd) ncnn=$(cd "$2" && pwd) out=$3
mkdir -p "$out"
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export VKI_TEST_DATA="${VKI_TEST_DATA:-$root/tests/data}"
"$bundle/vkinfer" info > "$out/tests.log" 2>&1
failed=0
for t in test_int8 test_quant test_dwpw; do
  if "$bundle/tests/$t" --jobs 8 --verbose >> "$out/tests.log" 2>&1; then echo "$t: ok"
  else echo "$t: FAIL"; failed=$((failed + 1)); fi
done
grep -h 'elements compared' "$out/tests.log"
if [ -x "$bundle/probe/vkprobe" ]; then
  (cd "$bundle/probe" && ./vkprobe .) > "$out/probe.txt" 2>&1
  tail -3 "$out/probe.txt"
fi
models=$(mktemp -d)
trap 'rm -rf "$models"' EXIT
python3 "$root/bench/int8_models.py" "$models" 224 > /dev/null
"$root/bench/int8_vs_float.sh" --vkinfer "$bundle/vkinfer" --ncnn "$ncnn" --rounds "$rounds" \
  --runs "$runs" --warmup "$warmup" "$models" > "$out/int8_vs_float.md" 2>&1
cat "$out/int8_vs_float.md"
[ "$failed" -eq 0 ]
