#!/bin/sh
# plan_report.sh VKINFER MODEL... : the memory report of issue #13 for each model, from
# `vkinfer plan --json`: every strategy in the stored order, the lower bound in the stored
# order, with in-place outputs and in the chosen order, and the final plan (BEST in the chosen
# order, what graphs allocate), in MB; the last column is the final plan over the
# stored-order bound. Set VKI_* variables as for any run (VKI_DEVICE, VKI_DWPW, ...).
set -eu
vkinfer=$1
shift
command -v python3 >/dev/null || { echo "plan_report: needs python3" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for m in "$@"; do
  "$vkinfer" plan --json "$m" > "$tmp/$(basename "$m" .tflite).json"
done
"$vkinfer" info 2>/dev/null | head -1 || true
python3 "$(dirname "$0")/plan_table.py" "$tmp"
