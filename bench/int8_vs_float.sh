#!/bin/sh
# int8_vs_float.sh [--vkinfer BIN] [--rounds N] [--runs N] [--warmup N] DIR
#
# Times each int8 network of DIR (NAME_int8.tflite, written by bench/int8_models.py)
# against its float twin (NAME_float.tflite) on the default Vulkan device, in fp32 and fp16,
# alternating int8 and float model by model so that machine noise hits both alike; with
# --rounds N the sweep repeats, each round swapping which goes first. Input copy timed on
# both sides (--with-io). Prints a header and one markdown row per model and precision:
# median (p10-p90) of int8 and of float, float/int8, each side's dispatch count and its
# planned intermediate memory (MB), from `vkinfer run --profile`.
# Defaults: build/vkinfer [VKINFER], 2 rounds, 200 runs after 20 warm-ups.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
vkinfer=${VKINFER:-$root/build/vkinfer}
rounds=2 runs=200 warmup=20
while [ $# -gt 1 ]; do
  case $1 in
    --vkinfer) vkinfer=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    *) echo "int8_vs_float.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# -eq 1 ] || { sed -n '2p' "$0" | sed 's/^# //' >&2; exit 2; }
dir=$1
status=0
# median p10 p90 of one bench run: "M (P10-P90)"
timed() {  # timed MODEL FLAGS...
  m=$1; shift
  "$vkinfer" bench "$m" --csv --with-io --runs "$runs" --warmup "$warmup" "$@" 2>/dev/null |
    awk -F, 'NR == 2 { printf "%.3f (%.3f-%.3f)", $(NF - 7), $(NF - 6), $(NF - 5) }'
}
shape() {  # shape MODEL FLAGS...: "DISPATCHES MB"
  m=$1; shift
  "$vkinfer" run "$m" --task none --profile "$@" 2>/dev/null |
    awk '/^GPU total/ { d = $(NF - 1) } /^memory:/ { for (i = 1; i <= NF; i++) if ($i == "intermediates") mb = $(i + 1) }
         END { printf "%s %s", d, mb }'
}
echo "device: $("$vkinfer" info 2>/dev/null | awk '/\*/ { sub(/^[^*]*\* */, ""); print; exit }')"
echo "runs: $runs after $warmup warm-ups, input copy timed, $rounds rounds alternating; $(date -u +%Y-%m-%d)"
echo
echo "| model | precision | round | int8 ms | float ms | float/int8 | dispatches int8/float | intermediates MB int8/float |"
echo "|---|---|---|---|---|---|---|---|"
for r in $(seq 1 "$rounds"); do
  for q in fp32 fp16; do
    flag=""
    [ "$q" = fp16 ] && flag=--fp16
    for i in "$dir"/*_int8.tflite; do
      f=${i%_int8.tflite}_float.tflite
      name=$(basename "${i%_int8.tflite}")
      if [ $((r % 2)) -eq 1 ]; then a=$(timed "$i" $flag); b=$(timed "$f" $flag)
      else b=$(timed "$f" $flag); a=$(timed "$i" $flag); fi
      if [ -z "$a" ] || [ -z "$b" ]; then status=1; echo "| $name | $q | $r | failed | | | | |"; continue; fi
      set -- $(shape "$i" $flag) $(shape "$f" $flag)
      ratio=$(echo "$a $b" | awk '{ printf "%.2f", $3 / $1 }')
      echo "| $name | $q | $r | $a | $b | ${ratio}x | $1/$3 | $2/$4 |"
    done
  done
done
exit $status
