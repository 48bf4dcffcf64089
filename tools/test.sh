#!/bin/sh
# test.sh: the whole test suite, as CI runs it. Installs what is missing, fetches the
# models, then runs every Criterion suite three ways on the default Vulkan device
# (lavapipe when there is no GPU): plain; with the Khronos validation layer, where any
# validation error fails the test; and built with AddressSanitizer + UBSan. The thread
# and API suites run a fourth time built with ThreadSanitizer. The faults suite walks
# every warm fault point and every third cold one (tests/test_faults.c) in the plain run,
# and fewer in the slower runs, their cold points offset from the plain run's: the three
# runs together walk about 42% of the cold points and never the rest. Those also share
# the op cases: the validation run takes the even cases of every op table and the
# sanitizer run the odd ones (VKI_OP_CASES_EVERY=2:K; both halves hold every channel
# count), so every case runs plain and under one of the two; and they run the agreement
# checks (memory strategies, each pass left out, the schedule stage) on one model, the
# plain run on the five public ones (VKI_AGREE_MODELS, VKI_SCHEDULE_MODELS in
# tests/test_conformance.c), so CI never checks the schedule stage on the other eight
# MediaPipe models (four more minutes here; run the conformance suite without these
# variables for all thirteen); they skip compiling every kernel variant, which gives what
# the plain run's compiles did (VKI_KERNELS=skip), and the sanitizer run walks every 17th
# warm and every 63rd cold fault point (coprime with the four host allocations of
# compiling one kernel); it leaves out the comparisons of the five other MediaPipe models
# with TFLite and pose_landmark_lite in fp16 arithmetic (the plain and validation runs have
# them; their host code is what the other conformance cases run; 2-3 minutes under ASan).
# The graph tester (tests/graphs/) runs its saved cases in every run
# and its fixed seeds in the plain run only (VKI_GRAPHS=regress in the slower ones).
# CI must finish in 90 minutes on two cores.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/tools/setup.sh"
"$root/tools/fetch_models.sh"

. "$root/tools/tally.sh"
run_suite() {  # run_suite LABEL BUILD_DIR [ENV=VALUE...]
  label=$1 dir=$2 t0=$(date +%s)
  shift 2
  if env "$@" meson test -C "$dir" --print-errorlogs --num-processes 1 >"$dir/test-$label.log" 2>&1; then
    status=ok
  else
    status=FAILED
  fi
  tally "$dir/test-$label.log" "$status"
  echo "== $label: $ok suites passed, $bad failed ($status) in $(( $(date +%s) - t0 ))s"
  # The slowest suites, for keeping CI inside its time.
  grep -E '^ *[0-9]+/[0-9]+ ' "$dir/test-$label.log" |
    awk '{for (i = NF; i > 4; i--) if ($i ~ /^[0-9.]+s$/) { print $i, $4; break }}' |
    sort -rn | head -5 | tr '\n' ' ' | sed 's/^/   slowest: /;s/$/\n/'
  grep -h "conformance:" "$dir"/meson-logs/testlog.txt 2>/dev/null | sort -u | sed 's/^/   /' || true
  [ "$status" = ok ] || sed -n '/^=* *[0-9]*\/[0-9]* .*FAIL/,/^=*$/p;/ERROR\|FAIL\|Assertion/p' "$dir/meson-logs/testlog.txt" | head -60
}

[ -d build ] || meson setup build >/dev/null
ninja -C build
run_suite plain build VKI_SCHEDULE_MODELS=public
run_suite validation build VKI_VALIDATION=fatal VKI_FAULT_STRIDE=5 VKI_FAULT_COLD_STRIDE=15:2 \
  VKI_AGREE_MODELS=one VKI_OP_CASES_EVERY=2:0 VKI_KERNELS=skip VKI_GRAPHS=regress

[ -d build-asan ] || meson setup build-asan -Dbuildtype=debug -Db_sanitize=address,undefined >/dev/null
ninja -C build-asan
# lavapipe's LLVM JIT keeps allocations for the life of the process; leaks in vkinfer's
# own code still fail (tests/lsan.supp lists only the driver's libraries).
run_suite asan build-asan \
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  LSAN_OPTIONS=suppressions=$root/tests/lsan.supp:print_suppressions=0 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  VKI_GRAPHS=regress VKI_FAULT_STRIDE=17 VKI_FAULT_COLD_STRIDE=63:3 VKI_AGREE_MODELS=one VKI_OP_CASES_EVERY=2:1 \
  VKI_KERNELS=skip CRITERION_TEST_PATTERN='!(other_models/*|conformance/pose_landmark_lite_fp16)'

# ThreadSanitizer sees vkinfer's own code and the calls it makes; lavapipe is not built
# with it, so no report comes from the driver and no suppression is needed.
[ -d build-tsan ] || meson setup build-tsan -Dbuildtype=debug -Db_sanitize=thread -Dtests=true >/dev/null
ninja -C build-tsan
run_suite tsan build-tsan TSAN_OPTIONS=halt_on_error=1

echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
