#!/bin/sh
# make_fuzz_corpus.sh MODEL OUTDIR: writes a seed corpus for fuzz_loader: the model itself,
# truncated copies, and copies with a few bytes flipped (deterministic, so runs compare).
set -eu

if [ $# -ne 2 ]; then
    echo "usage: $0 MODEL.tflite OUTDIR" >&2
    exit 2
fi
model=$1
out=$2
[ -r "$model" ] || { echo "$0: cannot read $model" >&2; exit 1; }
mkdir -p "$out"

size=$(wc -c < "$model" | tr -d ' ')
cp "$model" "$out/model"

# Truncations: the header, the tables near the start, and fractions of the whole.
for len in 0 4 8 16 64 256 1024 4096 $((size / 4)) $((size / 2)) $((size * 3 / 4)) $((size - 1)); do
    [ "$len" -ge 0 ] && [ "$len" -lt "$size" ] || continue
    head -c "$len" "$model" > "$out/trunc_$len"
done

# Byte flips: positions from a fixed linear congruential sequence, biased towards the
# first and last 8 KiB where the converter puts the FlatBuffer tables.
seed=12345
next() { seed=$(( (seed * 1103515245 + 12345) % 2147483648 )); }
i=0
while [ $i -lt 8 ]; do
    cp "$model" "$out/flip_$i"
    j=0
    while [ $j -lt 4 ]; do
        next
        case $((seed % 3)) in
            0) pos=$((seed % (size < 8192 ? size : 8192))) ;;
            1) pos=$((size - 1 - seed % (size < 8192 ? size : 8192))) ;;
            *) pos=$((seed % size)) ;;
        esac
        next
        printf '%b' "$(printf '\\0%03o' $((seed % 256)))" |
            dd of="$out/flip_$i" bs=1 seek="$pos" conv=notrunc status=none
        j=$((j + 1))
    done
    i=$((i + 1))
done
echo "$0: wrote $(ls "$out" | wc -l | tr -d ' ') files to $out"
