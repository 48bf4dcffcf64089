#!/bin/sh
# device_suite.sh BUNDLE_DIR MODEL_DIR: runs on a machine that has a Vulkan driver but
# no build tools: lists the devices, runs every Criterion suite from the bundle (tests
# built here, with the shared libraries they need beside them), then the five-model
# conformance and latency sweep. BUNDLE_DIR holds vkinfer, tests/ and lib/.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bundle=$1
models=$2
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export VKI_MODEL_DIR="$models" VKI_TEST_DATA="$root/tests/data"
"$bundle/vkinfer" info
failed=0
for t in "$bundle"/tests/test_*; do
  name=$(basename "$t")
  if "$t" --jobs 8 >"/tmp/$name.log" 2>&1; then r=ok; else r=FAIL; failed=$((failed + 1)); fi
  echo "$name: $r $(grep -o 'Tested: [0-9]* | Passing: [0-9]* | Failing: [0-9]* | Crashing: [0-9]*' "/tmp/$name.log")"
  [ "$r" = ok ] || tail -12 "/tmp/$name.log"
  grep -h '^conformance:' "/tmp/$name.log" | sort
done
"$root/bench/conformance.sh" "$bundle/vkinfer" "$models" || failed=$((failed + 1))
echo "device suite: $failed failed"
[ "$failed" -eq 0 ]
