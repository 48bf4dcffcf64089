#!/bin/sh
# int8_vs_float.sh [--vkinfer BIN] [--rounds N] [--runs N] [--warmup N] [--ncnn NCNN_DIR] DIR
#
# Times each int8 network of DIR (NAME_int8.tflite, written by bench/int8_models.py)
# against its float twin (NAME_float.tflite) on the default Vulkan device, in fp32 and fp16,
# alternating int8 and float model by model so that machine noise hits both alike; with
# --rounds N the sweep repeats, each round swapping which goes first. Input copy timed on
# both sides (--with-io). Prints a header and one markdown row per model and precision:
# median (p10-p90) of int8 and of float, float/int8, each side's dispatch count and its
# activation memory (MB): the planned intermediates plus the I/O tensors held on the device,
# from `vkinfer run --profile`. Both count: an int8 model whose first QUANTIZE runs in the
# input's conversion keeps its input as int8 among the intermediates, where the float twin
# keeps a float32 input tensor among the I/O tensors.
#
# --ncnn NCNN_DIR (the peer's folder, e.g. ../shared/peers/ncnn, with ncnn_bench.sh) also
# times ncnn (Vulkan) on each float twin in the same sweep, after the two vkinfer runs (before
# them in even rounds), with the same runs and warm-ups and ncnn's --fp16 in the fp16 rows; its
# converter cannot read the int8 files. ncnn times one Extractor: upload, run, download. Before
# the sweep (untimed) each float twin runs once in vkinfer fp32 on a seeded input (xorshift32,
# 0x12345678, [-1,1)) and ncnn's outputs are checked against those: fp32 at ncnn_bench.sh's
# default tolerance (1e-4), fp16 at --tol 3e-2 (ncnn_bench.sh checks no fp16 tolerance itself).
# Two columns are added: "ncnn float ms" (median (p10-p90)) and "ncnn/int8" (ncnn median /
# int8 median); where ncnn can't convert a model, fails or misses the tolerance they read
# "n/a (convert|runner|check|failed)" and a note after the table gives the reason and error.
# ncnn's failures leave the exit status alone; vkinfer's make it 1. Helper: bench/ncnn_twin.py.
# Without --ncnn the output is as it always was.
# Defaults: build/vkinfer [VKINFER], 2 rounds, 200 runs after 20 warm-ups.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
vkinfer=${VKINFER:-$root/build/vkinfer}
rounds=2 runs=200 warmup=20 ncnn=""
while [ $# -gt 1 ]; do
  case $1 in
    --vkinfer) vkinfer=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --ncnn) ncnn=$2; shift 2 ;;
    *) echo "int8_vs_float.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# -eq 1 ] || { sed -n '2p' "$0" | sed 's/^# //' >&2; exit 2; }
dir=$1
status=0
# median p10 p90 of one bench run: "M (P10-P90)"
timed() {  # timed MODEL FLAGS...
  m=$1; shift
  "$vkinfer" bench "$m" --csv --with-io --runs "$runs" --warmup "$warmup" --warmup-ms 0 "$@" 2>/dev/null |
    awk -F, 'NR == 2 { printf "%.3f (%.3f-%.3f)", $(NF - 10), $(NF - 9), $(NF - 8) }'
}
shape() {  # shape MODEL FLAGS...: "DISPATCHES MB"
  m=$1; shift
  "$vkinfer" run "$m" --task none --profile "$@" 2>/dev/null |
    awk '/^GPU total/ { d = $(NF - 1) }
         /^memory:/ { for (i = 1; i <= NF; i++) { if ($i == "intermediates") mb += $(i + 1)
                                                   if ($i == "I/O" && $(i + 1) == "tensors") mb += $(i + 2) } }
         END { printf "%s %.3f", d, mb }'
}

# ---- --ncnn: the peer on the float twins (untimed preparation: inputs, references, links)
if [ -n "$ncnn" ]; then
  die() { echo "int8_vs_float.sh: $*" >&2; exit 2; }
  [ -f "$ncnn/ncnn_bench.sh" ] || die "no ncnn_bench.sh in $ncnn (--ncnn takes the peer's folder)"
  ncnn=$(cd "$ncnn" && pwd) || die "cannot enter $ncnn"
  absdir=$(cd "$dir" && pwd) || die "no model dir $dir"
  command -v python3 > /dev/null || die "python3 is needed for --ncnn"
  helper=$root/bench/ncnn_twin.py
  work=$(mktemp -d "${TMPDIR:-/tmp}/int8_vs_float.XXXXXX") || die "mktemp failed"
  trap 'rm -rf "$work"' EXIT
  trap 'exit 130' INT TERM HUP
  mkdir -p "$work/models" "$work/ref" "$work/keep" "$work/log"
  : > "$work/notes"; : > "$work/errs"
  for i in "$dir"/*_int8.tflite; do
    name=$(basename "${i%_int8.tflite}")
    f=$absdir/${name}_float.tflite
    mkdir -p "$work/ref/$name"
    if "$vkinfer" info "$f" > "$work/log/$name.info" 2>&1 &&
       python3 "$helper" prep "$work/log/$name.info" "$work/ref/$name" 2> "$work/log/$name.prep" &&
       "$vkinfer" run "$f" --task none --input "$work/ref/$name/input_0.f32" \
         --save "$work/ref/$name" > "$work/log/$name.save" 2>&1; then
      ln -s "$f" "$work/models/$name.tflite"
    else
      echo "int8_vs_float.sh: $name: no vkinfer fp32 reference for ncnn:" \
        "$(cat "$work/log/$name.prep" "$work/log/$name.save" 2>/dev/null | tail -1)" >&2
      echo "$name: no vkinfer fp32 reference for the check (vkinfer info/run --save failed)" >> "$work/notes"
    fi
  done
  # ncnn_cells NAME PREC INT8_CELL ROUND: prints "NCNN_CELL | RATIO" (times ncnn on the float twin)
  ncnn_cells() {
    if [ ! -e "$work/models/$1.tflite" ]; then printf 'n/a (ref) | -'; return; fi
    nf="" tol=""
    [ "$2" = fp16 ] && nf=--fp16 tol=3e-2
    rm -f "$work/keep/results.jsonl"
    # shellcheck disable=SC2086
    sh "$ncnn/ncnn_bench.sh" "$work/models" "$work/ref" --models "$1" --mode vulkan $nf \
      ${tol:+--tol "$tol"} --runs "$runs" --warmup "$warmup" --keep "$work/keep" \
      < /dev/null > "$work/log/$1.$2.$4.ncnn" 2>&1
    rc=$?
    [ -n "$tol" ] || case $1 in pose_*) tol=6e-4 ;; *) tol=1e-4 ;; esac  # ncnn_bench.sh's fp32 default
    IFS='	' read -r c ratio note err <<EOT
$(python3 "$helper" cell "$work/keep/results.jsonl" "$1" "$rc" "$tol" "${3%% *}" "$work/keep/models/$1.convert.log")
EOT
    case $note in
      ''|-) ;;
      conversion*) echo "$1: ncnn $note" | sed "s|$work/models/||" >> "$work/notes" ;;
      *) echo "$1 $2 round $4: ncnn $note" >> "$work/notes" ;;
    esac
    case $err in ''|-) ;; *) echo "$2 $err" >> "$work/errs" ;; esac
    printf '%s | %s' "${c:-n/a (failed)}" "${ratio:--}"
  }
fi

echo "device: $("$vkinfer" info 2>/dev/null | awk '/\*/ { sub(/^[^*]*\* */, ""); print; exit }')"
echo "runs: $runs after $warmup warm-ups, input copy timed, $rounds rounds alternating; $(date -u +%Y-%m-%d)"
if [ -n "$ncnn" ]; then
  echo "ncnn: ncnn_bench.sh --mode vulkan (fp16 rows: --fp16) on each float twin in the same sweep (int8, float, ncnn; reversed in even rounds), same runs and warm-ups; its times include upload and download; its outputs checked against vkinfer fp32 on the float twin: fp32 at ncnn's default tolerance 1e-4, fp16 at a looser --tol 3e-2"
fi
echo
if [ -n "$ncnn" ]; then
  echo "| model | precision | round | int8 ms | float ms | float/int8 | dispatches int8/float | activations MB int8/float | ncnn float ms | ncnn/int8 |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
else
  echo "| model | precision | round | int8 ms | float ms | float/int8 | dispatches int8/float | activations MB int8/float |"
  echo "|---|---|---|---|---|---|---|---|"
fi
for r in $(seq 1 "$rounds"); do
  for q in fp32 fp16; do
    flag=""
    [ "$q" = fp16 ] && flag=--fp16
    for i in "$dir"/*_int8.tflite; do
      f=${i%_int8.tflite}_float.tflite
      name=$(basename "${i%_int8.tflite}")
      n=""
      if [ $((r % 2)) -eq 1 ]; then
        a=$(timed "$i" $flag); b=$(timed "$f" $flag)
        [ -n "$ncnn" ] && n=$(ncnn_cells "$name" "$q" "${a:--}" "$r")
      else
        [ -n "$ncnn" ] && n=$(ncnn_cells "$name" "$q" - "$r")
        b=$(timed "$f" $flag); a=$(timed "$i" $flag)
        # the ratio needs the int8 median, known only now
        if [ -n "$ncnn" ] && [ -n "$a" ]; then
          n=$(echo "$n" | awk -v a="${a%% *}" -F' [|] ' '{ r = $2; if ($1 !~ /^n\/a/) r = sprintf("%.2fx", $1 / a); printf "%s | %s", $1, r }')
        fi
      fi
      tail=""
      [ -n "$ncnn" ] && tail=" $n |"
      if [ -z "$a" ] || [ -z "$b" ]; then status=1; echo "| $name | $q | $r | failed | | | | |$tail"; continue; fi
      set -- $(shape "$i" $flag) $(shape "$f" $flag)
      ratio=$(echo "$a $b" | awk '{ printf "%.2f", $3 / $1 }')
      echo "| $name | $q | $r | $a | $b | ${ratio}x | $1/$3 | $2/$4 |$tail"
    done
  done
done
if [ -n "$ncnn" ]; then
  echo
  awk '{ if (!($1 in w) || $2 > w[$1]) w[$1] = $2 } END { for (q in w) printf "%s %s\n", q, w[q] }' "$work/errs" |
    sort | awk 'BEGIN { s = "" } { s = s (s == "" ? "" : ", ") $1 " " $2 } END { if (s != "") print "ncnn worst rel err against vkinfer fp32 (max|a-b|/max(max|b|,1)): " s }'
  if [ -s "$work/notes" ]; then
    echo "ncnn n/a:"
    awk '!seen[$0]++ { print "- " $0 }' "$work/notes"
  fi
fi
exit $status
