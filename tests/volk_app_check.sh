#!/bin/sh
# volk_app_check.sh BUILD_DIR SOURCE_DIR CC SANITIZE VOLK_DIR
#
# An application with its own volk beside vkinfer's (tests/volk_app.c): its volk.c is
# compiled into it, as an app using volk does, so it defines every vk* function pointer
# and the volk* functions as globals of its own. It is linked against the build's
# libvkinfer.a (the same file meson installs; any vk*/volk* global left in it would make
# that link fail with multiple definitions) and against libvkinfer.so, and both run a
# small graph (tests/data/graphs/residual_mul_3x17) against its TFLite output. Also checks
# that neither library defines a vk*/volk* global. VOLK_DIR is the volk_dir option (empty:
# volk.h and volk.c are on the compiler's include path). SANITIZE as in install_check.sh.
set -eu
build=$1 src=$2 cc=$3 sanitize=$4 volk_dir=$5

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vki_volk_app.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
failures=0
fail() {
  echo "volk_app_check: FAIL: $*" >&2
  failures=$((failures + 1))
}

so=$(find "$build" -maxdepth 1 -name 'libvkinfer.so.*.*.*' | head -1)
archive=$build/libvkinfer.a
[ -f "$so" ] && [ -f "$archive" ] || { echo "volk_app_check: build libvkinfer.so and libvkinfer.a first" >&2; exit 1; }

# No volk or Vulkan symbol leaves either library.
nm -D --defined-only "$so" | awk '{print $NF}' | grep -E '^(vk[A-Z]|volk)' >"$tmp/so_vk" &&
  fail "libvkinfer.so exports $(wc -l <"$tmp/so_vk") vk*/volk* symbols, e.g. $(head -3 "$tmp/so_vk" | tr '\n' ' ')"
nm -g --defined-only -P "$archive" | awk 'NF >= 2 && $1 !~ /:$/ {print $1}' | grep -E '^(vk[A-Z]|volk)' >"$tmp/a_vk" &&
  fail "libvkinfer.a defines $(wc -l <"$tmp/a_vk") global vk*/volk* symbols, e.g. $(head -3 "$tmp/a_vk" | tr '\n' ' ')"
# ...while the library does carry a volk (hidden, or local in the archive).
nm "$archive" | grep -q ' [a-z] volkLoadDeviceTable$' ||
  fail "libvkinfer.a has no local volkLoadDeviceTable: is volk compiled in?"

san=""
[ "$sanitize" = none ] || [ -z "$sanitize" ] || san="-fsanitize=$sanitize"
volk_inc=""
[ -z "$volk_dir" ] || volk_inc="-I$volk_dir"
# The app's own volk: volk.c, from where volk.h is.
printf '#include <volk.c>\n' >"$tmp/app_volk.c"
# shellcheck disable=SC2086
$cc -std=c11 $san $volk_inc -c "$tmp/app_volk.c" -o "$tmp/app_volk.o" ||
  { echo "volk_app_check: cannot compile volk.c" >&2; exit 1; }
nm -g --defined-only "$tmp/app_volk.o" | grep -q ' vkCreateInstance$' ||
  fail "the app's volk.o defines no global vkCreateInstance"
# shellcheck disable=SC2086
$cc -std=c11 -Wall -Wextra -Werror $san $volk_inc -I"$src/include" -c "$src/tests/volk_app.c" \
  -o "$tmp/app.o"

# What a static link needs besides (vkinfer.pc's Libs.private).
private=$(sed -n 's/^Libs\.private: //p' "$build/meson-private/vkinfer.pc")
# shellcheck disable=SC2086
$cc $san -o "$tmp/app_static" "$tmp/app.o" "$tmp/app_volk.o" "$archive" $private -lm ||
  fail "linking the app and its volk with libvkinfer.a failed"
# shellcheck disable=SC2086
$cc $san -o "$tmp/app_shared" "$tmp/app.o" "$tmp/app_volk.o" "$so" -ldl -lm ||
  fail "linking the app and its volk with libvkinfer.so failed"

graph=$src/tests/data/graphs/residual_mul_3x17
for app in app_static app_shared; do
  [ -x "$tmp/$app" ] || continue
  if out=$(LD_LIBRARY_PATH=$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$tmp/$app" \
      "$graph.tflite" "$graph.in0.f32" "$graph.out0.f32"); then
    echo "volk_app_check: $app: $out"
  else
    fail "$app failed: $out"
  fi
done

if [ "$failures" -ne 0 ]; then
  echo "volk_app_check: $failures failures" >&2
  exit 1
fi
echo "volk_app_check: ok"
