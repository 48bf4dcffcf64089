#!/bin/sh
# graphs_device.sh GRAPH_CHECK GRAPHS.tar.xz SECONDS JOBS OUT_DIR [from-end]: the random-graph tester on
# a machine with a Vulkan driver but no Node or build tools (a GPU box). The graphs and
# LiteRT's outputs for them come from `tests/graphs/fuzz.py --seeds A:B --emit DIR` (tar
# the folder); tests/graph_check (built here, carried there) runs them with every check,
# JOBS processes at once on the one device (each with its own context: the driver's
# queues, memory and pipeline caches under concurrent use), until SECONDS have passed.
# Writes OUT_DIR/results.txt (graph_check's RESULT lines) and prints the tally and the
# graphs per minute. With from-end, the list is taken from its end (a second run over the
# same tarball checks other graphs).
set -eu
check=$1 tarball=$2 seconds=$3 jobs=$4 out=$5 order=${6:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar xJf "$tarball" -C "$work"
dir=$(find "$work" -name list.txt -exec dirname {} \; | head -1)
[ -n "$dir" ] || { echo "graphs_device: no list.txt in $tarball" >&2; exit 1; }
mkdir -p "$out"
# Job k takes every JOBS-th graph from k: each list runs in file order until time is up.
if [ "$order" = from-end ]; then tac "$dir/list.txt" >"$work/all.txt"; else cp "$dir/list.txt" "$work/all.txt"; fi
k=0
while [ "$k" -lt "$jobs" ]; do
  awk -v j="$jobs" -v k="$k" 'NR % j == k' "$work/all.txt" >"$work/list$k.txt"
  k=$((k + 1))
done
start=$(date +%s)
k=0
while [ "$k" -lt "$jobs" ]; do
  (cd "$dir" && timeout "$seconds" "$check" "$work/list$k.txt" >"$work/out$k.txt" 2>"$work/err$k.txt" || true) &
  k=$((k + 1))
done
wait
elapsed=$(( $(date +%s) - start ))
cat "$work"/out*.txt >"$out/results.txt"
cat "$work"/err*.txt >"$out/stderr.txt"
total=$(grep -c '^RESULT' "$out/results.txt" || true)
ok=$(grep -c '^RESULT [^ ]* ok' "$out/results.txt" || true)
failed=$(grep -c '^RESULT [^ ]* FAIL' "$out/results.txt" || true)
refused=$(grep -c '^RESULT [^ ]* REFUSED' "$out/results.txt" || true)
echo "graphs_device: $total graphs in ${elapsed} s with $jobs processes: $ok ok, $failed failed, $refused refused;" \
  "$(awk -v n="$total" -v s="$elapsed" 'BEGIN { printf "%.0f graphs/minute", n * 60 / (s ? s : 1) }')"
grep '^RESULT [^ ]* \(FAIL\|REFUSED\)' "$out/results.txt" | cut -c1-400 | head -40 || true
