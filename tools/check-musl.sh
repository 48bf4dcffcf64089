#!/bin/sh
# check-musl.sh: shows that the library's C (engine/, planner/, tuner/) and the CLI
# (tools/*.c) use only what musl offers: no glibc-only API, so that the code builds
# on a libc other than glibc. Compiles every file with musl-gcc (Debian's musl-tools)
# against musl's headers alone, with the project's flags and implicit declarations as
# errors, then checks that every symbol the objects leave undefined is defined by another
# of them, by musl's libc.a, or by shaderc. The include path holds musl's headers and
# only the Vulkan, volk and shaderc headers besides (linked one by one from /usr/include,
# never /usr/include itself), plus the generated glsl_kernels.h of the native build
# (build/, made if it is missing). Installs musl-tools if missing; exits non-zero and
# names the file and the function or symbol at fault on any failure.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if ! command -v musl-gcc >/dev/null 2>&1; then
  echo "check-musl: installing musl-tools"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends musl-tools >/dev/null
fi
# musl-gcc -print-file-name answers with glibc's; musl-dev's own list knows.
musl_libc=$(dpkg -L musl-dev 2>/dev/null | grep '/libc\.a$' | head -1)
[ -f "$musl_libc" ] || { echo "check-musl: musl's libc.a not found" >&2; exit 1; }

# The generated sources (glsl_kernels.h, glsl_sources.c) from the native build.
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build glsl_kernels.h glsl_sources.c wg_table_text.c >/dev/null

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/include" "$tmp/obj"
for h in vulkan vk_video shaderc volk.h volk.c; do
  [ -e "/usr/include/$h" ] && ln -s "/usr/include/$h" "$tmp/include/$h"
done

# The project's own flags (meson.build): C11, POSIX 2008, no Vulkan prototypes.
flags="-std=c11 -D_POSIX_C_SOURCE=200809L -DVK_NO_PROTOTYPES -DVKI_SHARED_BUILD -DVKI_HAVE_COMPILER=1 -O1
  -Wall -Wextra -Werror=implicit-function-declaration -Werror=implicit-int
  -I$root/include -I$root/engine -I$root/engine/ir -I$root/engine/emit -I$root/engine/runtime -I$root/engine/decode -I$root -I$root/build -I$tmp/include"
files=$(ls engine/*/*.c planner/*.c tuner/*.c tools/*.c build/glsl_sources.c build/wg_table_text.c)
n=0
failed=0
for f in $files; do
  n=$((n + 1))
  obj="$tmp/obj/$n.o"
  echo "$n.o $f" >>"$tmp/objects"
  # shellcheck disable=SC2086
  if ! musl-gcc $flags -c "$f" -o "$obj" 2>"$tmp/err"; then
    echo "check-musl: $f does not compile against musl:" >&2
    grep -E 'error|implicit' "$tmp/err" | head -10 >&2
    failed=$((failed + 1))
  fi
done

# Undefined symbols: each must come from one of the objects, musl's libc.a (libm and libdl
# are part of it), shaderc (shaderc_*, linked statically into the library), or the linker
# (_GLOBAL_OFFSET_TABLE_).
nm -g --defined-only "$tmp"/obj/*.o 2>/dev/null | awk 'NF == 3 {print $3}' >"$tmp/defined"
nm -g --defined-only "$musl_libc" 2>/dev/null | awk 'NF == 3 {print $3}' >>"$tmp/defined"
sort -u "$tmp/defined" -o "$tmp/defined"
for obj in "$tmp"/obj/*.o; do
  nm -u "$obj" | awk '{print $2}' | grep -v -e '^shaderc_' -e '^_GLOBAL_OFFSET_TABLE_$' | sort -u | comm -23 - "$tmp/defined" >"$tmp/missing" || true
  if [ -s "$tmp/missing" ]; then
    src=$(awk -v o="$(basename "$obj")" '$1 == o {print $2}' "$tmp/objects")
    echo "check-musl: $src uses symbols musl lacks: $(tr '\n' ' ' <"$tmp/missing")" >&2
    failed=$((failed + 1))
  fi
done

if [ "$failed" -ne 0 ]; then
  echo "check-musl: $failed problems in $n files" >&2
  exit 1
fi
echo "check-musl: $n files compile and resolve against musl $(dpkg-query -W -f='${Version}' musl 2>/dev/null || true): no glibc-only API"
