# tally.sh: sourced by test.sh and test-arm64.sh. tally LOG STATUS adds the suites a
# `meson test` log counts (Ok; Fail and Timeout as failed) to $passed and $failed, a run
# that failed without a count as one failure, and sets $ok and $bad for the caller's line.
passed=0
failed=0
tally() {  # tally LOG STATUS
  ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$1" | tail -1)
  bad=$(sed -n 's/^Fail: *\([0-9]*\).*/\1/p' "$1" | tail -1)
  timeouts=$(sed -n 's/^Timeout: *\([0-9]*\).*/\1/p' "$1" | tail -1)
  ok=${ok:-0}
  bad=$(( ${bad:-0} + ${timeouts:-0} ))
  [ "$2" = ok ] || [ "$bad" -gt 0 ] || bad=1
  passed=$(( passed + ok ))
  failed=$(( failed + bad ))
}
