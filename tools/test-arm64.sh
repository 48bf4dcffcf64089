#!/bin/sh
# test-arm64.sh: cross-builds vkinfer (library, CLI, tests) for aarch64 Linux and runs the
# tests under qemu-user on Mesa's lavapipe built for arm64, on any amd64 Debian 12 machine.
#
# Installs what is missing: the cross compilers (gcc/g++-aarch64-linux-gnu), qemu-user,
# and, with arm64 added as a dpkg architecture, mesa-vulkan-drivers:arm64 and
# libvulkan1:arm64, which install beside the native ones. The arm64 development packages
# (shaderc, glslang, SPIRV-Tools, Vulkan headers, Criterion) cannot be installed beside
# the native ones without removing those, so they are downloaded and unpacked into a
# sysroot, .arm64-sysroot/ (git-ignored), with the runtime libraries the test programs
# need (libcriterion and its dependencies). The build goes to build-arm64/ with
# tools/cross/aarch64-linux-gnu.ini; the native build/ is left alone.
#
# Criterion runs every test in a process that re-executes the test program, which the
# kernel can start only where qemu-aarch64 is registered with binfmt_misc. Where it is not
# (a container), the tests run in a user namespace with a binfmt_misc of their own
# (Linux 6.7 or later) in which qemu-aarch64 is registered; nothing outside changes.
#
# What runs (every test in fp32 only: lavapipe under qemu-aarch64 offers fp16 storage,
# but its LLVM aborts compiling fp16 loads, "Cannot select: v4f32 = fp_extend v4i16"):
#   api, loader, planner, tuner and threads: every test;
#   ops_eltwise, ops_conv, ops_layout, ops_spatial, ops_tconv, ops_coverage: every
#     validation and reference test, and cases 0, 11, 22, ... of every case table
#     (VKI_OP_CASES_EVERY=11: 280 of 2601 cases, every op and table, all of them small
#     shapes), but not conv2d/heuristic_tiles_on_larger_shapes (up to 260x257 inputs);
#   conformance: face_detection_short_range in fp32 against TFLite (error <= 1e-4).
# The closing line counts suites; the logs are build-arm64/test-*.log.
set -eu
start=$(date +%s)
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/tools/setup.sh"
"$root/tools/fetch_models.sh"

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }

# ---- host packages ----------------------------------------------------------------------
dpkg --print-foreign-architectures | grep -qx arm64 || $sudo dpkg --add-architecture arm64
missing=""
for p in gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user mesa-vulkan-drivers:arm64 \
         libvulkan1:arm64; do
  installed "$p" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "test-arm64: installing$missing"
  # After adding the architecture, apt knows no arm64 package until it updates.
  apt-cache show mesa-vulkan-drivers:arm64 >/dev/null 2>&1 || $sudo apt-get update -qq
  # shellcheck disable=SC2086
  $sudo apt-get install -y -qq --no-install-recommends $missing >/tmp/test-arm64-apt.log 2>&1 || {
    tail -20 /tmp/test-arm64-apt.log >&2; exit 1; }
fi

# ---- the sysroot of arm64 development packages -------------------------------------------
sysroot=$root/.arm64-sysroot
dev="libshaderc-dev glslang-dev spirv-tools libvulkan-dev libcriterion-dev libstb-dev"
# volk's headers (architecture-independent), while the engine includes them.
extra=""
grep -qs '<volk' engine/*/*.c && extra="libvulkan-volk-dev"
if [ "$(cat "$sysroot/.packages" 2>/dev/null)" != "$dev $extra" ]; then
  echo "test-arm64: unpacking arm64 $dev $extra into .arm64-sysroot/"
  apt-cache show libshaderc-dev:arm64 >/dev/null 2>&1 || $sudo apt-get update -qq
  rm -rf "$sysroot"
  mkdir -p "$sysroot/debs"
  # What installing them would bring in, as apt resolves it (it would also remove the
  # native -dev packages: that is why they are only unpacked). The C library's headers
  # and pkg-config itself come from the cross toolchain and the host.
  # shellcheck disable=SC2046,SC2086
  list=$(apt-get install -s --no-install-recommends $(printf '%s:arm64 ' $dev) 2>/dev/null |
    sed -n 's/^Inst \([^ ]*:arm64\) (\([^ ]*\) .*\[arm64\])$/\1=\2/p' |
    grep -vE '^(libc6-dev|linux-libc-dev|libcrypt-dev|libnsl-dev|libtirpc-dev|pkgconf|pkg-config):') || true
  for p in $dev; do
    echo "$list" | grep -q "^$p:arm64=" || { echo "test-arm64: apt does not offer $p:arm64" >&2; exit 1; }
  done
  # shellcheck disable=SC2086
  (cd "$sysroot/debs" && apt-get download $list $extra >"$sysroot/download.log" 2>&1) || {
    tail -5 "$sysroot/download.log" >&2; exit 1; }
  for deb in "$sysroot"/debs/*.deb; do dpkg -x "$deb" "$sysroot"; done
  rm -rf "$sysroot/debs"
  echo "$dev $extra" >"$sysroot/.packages"
fi
# The cross file takes the sysroot's absolute path from this one.
printf "[constants]\nsysroot = '%s'\n" "$sysroot" >"$sysroot/sysroot.ini.new"
if cmp -s "$sysroot/sysroot.ini.new" "$sysroot/sysroot.ini"; then
  rm "$sysroot/sysroot.ini.new"
else
  mv "$sysroot/sysroot.ini.new" "$sysroot/sysroot.ini"
fi

# ---- build ---------------------------------------------------------------------------------
dir=build-arm64
cross="tools/cross/aarch64-linux-gnu.ini"
stamp=$(cat "$sysroot/sysroot.ini" "$cross" "$sysroot/.packages" | sha256sum)
if [ ! -f "$dir/build.ninja" ] || [ "$(cat "$dir/.cross-stamp" 2>/dev/null)" != "$stamp" ]; then
  rm -rf "$dir"
  meson setup "$dir" --cross-file "$sysroot/sysroot.ini" --cross-file "$cross" >/dev/null
  echo "$stamp" >"$dir/.cross-stamp"
fi
echo "test-arm64: building in $dir/ ($(( $(date +%s) - start ))s in)"
ninja -C "$dir" -j "$(nproc)" >"$dir/build.log" 2>&1 || { tail -30 "$dir/build.log" >&2; exit 1; }
echo "test-arm64: built ($(( $(date +%s) - start ))s in)"

# ---- run -----------------------------------------------------------------------------------
export VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.aarch64.json
export LD_LIBRARY_PATH="$sysroot/usr/lib/aarch64-linux-gnu:$sysroot/lib/aarch64-linux-gnu"
export VKI_TEST_PRECISIONS=fp32 VKI_OP_CASES_EVERY=11
# The registration of qemu-aarch64 for aarch64 ELF programs (as qemu-binfmt-conf.sh has it).
binfmt=':qemu-aarch64:M::\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:/usr/bin/qemu-aarch64:F'
if grep -qs '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64; then
  in_binfmt() { "$@"; }
elif unshare -U -r -m sh -c 'mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc' 2>/dev/null; then
  in_binfmt() {  # $0 of the inner shell is the registration, "$@" the command
    # shellcheck disable=SC2016
    unshare -U -r -m sh -c 'mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc &&
      printf "%s" "$0" >/proc/sys/fs/binfmt_misc/register && exec "$@"' "$binfmt" "$@"
  }
else
  echo "test-arm64: qemu-aarch64 is not registered with binfmt_misc and no user namespace" \
    "can have its own (Linux >= 6.7); install qemu-user-binfmt" >&2
  exit 1
fi

. "$root/tools/tally.sh"
run_suites() {  # run_suites LABEL CRITERION_ARGS SUITE...
  label=$1 args=$2
  shift 2
  log="$dir/test-$label.log"
  # Each suite keeps its native time limit (900 s; the slowest here takes 72 s under
  # qemu), so a suite that hangs fails in 15 minutes with its name in the log, and CI
  # still ends inside its own limit.
  if in_binfmt meson test -C "$dir" --no-rebuild --print-errorlogs --num-processes 1 \
      ${args:+"--test-args=$args"} "$@" >"$log" 2>&1; then
    status=ok
  else
    status=FAILED
  fi
  tally "$log" "$status"
  echo "== $label ($*): $ok suites passed, $bad failed ($status, $(( $(date +%s) - start ))s in)"
  grep -E '^ *[0-9]+/[0-9]+ ' "$log" | sed 's/^ */   /'
  grep -h "conformance:" "$dir/meson-logs/testlog.txt" 2>/dev/null | sort -u | sed 's/^/   /' || true
  [ "$status" = ok ] || grep -E 'FAIL|CRASH|ERROR|Assertion|crashed' "$log" | grep -v SKIP | head -40
}

run_suites plain "" api loader planner tuner threads
ops_filter='!(conv2d/heuristic_tiles_on_larger_shapes)'
run_suites ops "--filter=$ops_filter" ops_eltwise ops_conv ops_layout ops_spatial ops_tconv ops_coverage
run_suites conformance "--filter=conformance/face_detection_short_range" conformance

elapsed=$(( $(date +%s) - start ))
echo "arm64 suites: $passed passed, $failed failed in $((elapsed / 60))m$((elapsed % 60))s"
[ "$failed" -eq 0 ]
