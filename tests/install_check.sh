#!/bin/sh
# install_check.sh BUILD_DIR SOURCE_DIR MESON CC SANITIZE MODEL
#
# The library as an application gets it: installs the build into a temporary directory
# (meson install --destdir), then checks
#   - vkinfer.pc and vkinfer-static.pc need no other .pc file (no Requires: Vulkan is
#     loaded at run time), and a static link needs only system libraries;
#   - libvkinfer.so's SONAME is libvkinfer.so.<major> and it exports exactly the VKI_API
#     functions of the installed headers (vkinfer.h, vkinfer_decode.h);
#   - libvkinfer.a defines no global vk*/volk* symbol (which would clash with an
#     application's own volk or libvulkan), indeed no global symbol but the API, and a
#     shared object built from it (the shader compiler inside included) exports only the
#     API and its own symbols;
#   - tests/install_check.c, built with the flags pkg-config gives and nothing else,
#     links and runs against libvkinfer.a (vkinfer-static.pc) and libvkinfer.so;
#   - tests/cmake_consumer, built with CMake through lib/cmake/vkinfer (find_package),
#     runs MODEL against vkinfer::vkinfer and vkinfer::vkinfer_static: kernels compiled
#     by the shader compiler inside each library;
#   - a fully static executable (-static) gets VKI_ERROR_NO_DEVICE saying why, not a crash.
# SANITIZE is the build's b_sanitize ("none" or e.g. "address,undefined"): a sanitized
# build installs instrumented libraries, so the application is built with it too (and
# there is no -static executable).
set -eu
build=$1 src=$2 meson=$3 cc=$4 sanitize=$5 model=$6

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vki_install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
dest=$tmp/dest
failures=0
fail() {
  echo "install_check: FAIL: $*" >&2
  failures=$((failures + 1))
}

"$meson" install -C "$build" --destdir "$dest" --no-rebuild >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log" >&2; echo "install_check: meson install failed" >&2; exit 1; }

pc=$(find "$dest" -name vkinfer.pc)
[ -n "$pc" ] || { echo "install_check: no vkinfer.pc installed" >&2; exit 1; }
pcdir=$(dirname "$pc")
libdir=$(dirname "$pcdir")
header=$(find "$dest" -name vkinfer.h)
[ -n "$header" ] || { echo "install_check: no vkinfer.h installed" >&2; exit 1; }
headers="$header $(dirname "$header")/vkinfer_decode.h"
[ -f "$(dirname "$header")/vkinfer_decode.h" ] ||
  fail "vkinfer_decode.h is not installed beside vkinfer.h"
echo "install_check: $pc"
sed 's/^/  /' "$pc"

# Only the installed .pc, its paths moved into the destdir: it must suffice alone.
PKG_CONFIG_LIBDIR=$pcdir
PKG_CONFIG_PATH=
PKG_CONFIG_SYSROOT_DIR=$dest
PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1
PKG_CONFIG_ALLOW_SYSTEM_LIBS=1
export PKG_CONFIG_LIBDIR PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_ALLOW_SYSTEM_CFLAGS \
  PKG_CONFIG_ALLOW_SYSTEM_LIBS
grep -q '^Requires' "$pc" && fail "vkinfer.pc has a Requires line: $(grep '^Requires' "$pc")"
static_pc=$pcdir/vkinfer-static.pc
[ -f "$static_pc" ] || fail "vkinfer-static.pc is not installed beside vkinfer.pc"
grep -q '^Requires' "$static_pc" 2>/dev/null && fail "vkinfer-static.pc has a Requires line"
version=$(pkg-config --modversion vkinfer)
major=${version%%.*}

# ---- libvkinfer.so ----
so=$libdir/libvkinfer.so
[ -f "$so.$version" ] || fail "$so.$version is missing"
soname=$(readelf -d "$so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "libvkinfer.so.$major" ] || fail "SONAME is '$soname', want libvkinfer.so.$major"
[ -e "$libdir/$soname" ] || fail "$libdir/$soname is missing"
# The API, read from the installed headers independently of tools/api_symbols.py.
: >"$tmp/api_all"
for h in $headers; do
  [ -f "$h" ] || continue
  sed -n 's/^VKI_API[^(]*[ *]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1/p' "$h" >"$tmp/api_one"
  [ -s "$tmp/api_one" ] || fail "no VKI_API declarations found in $h"
  cat "$tmp/api_one" >>"$tmp/api_all"
done
sort "$tmp/api_all" >"$tmp/api"
nm -D --defined-only "$so" | awk '{print $NF}' | sort >"$tmp/exported"
if ! cmp -s "$tmp/api" "$tmp/exported"; then
  fail "libvkinfer.so exports other than the VKI_API functions (< header only, > .so only):"
  diff "$tmp/api" "$tmp/exported" | grep '^[<>]' | head -40 >&2 || true
fi
echo "install_check: libvkinfer.so: SONAME $soname, $(wc -l <"$tmp/exported") symbols exported," \
  "$(wc -l <"$tmp/api") VKI_API functions in the headers"

# ---- libvkinfer.a ----
archive=$libdir/libvkinfer.a
nm -g --defined-only -P "$archive" | awk 'NF >= 2 && $1 !~ /:$/ {print $1}' | sort -u >"$tmp/globals"
if grep -E '^(vk[A-Z]|volk)' "$tmp/globals" >"$tmp/vk"; then
  fail "libvkinfer.a defines $(wc -l <"$tmp/vk") global vk*/volk* symbols, e.g. $(head -3 "$tmp/vk" | tr '\n' ' ')"
fi
if ! cmp -s "$tmp/api" "$tmp/globals"; then
  fail "libvkinfer.a has global symbols other than the VKI_API functions (< header only, > archive only):"
  diff "$tmp/api" "$tmp/globals" | grep '^[<>]' | head -40 >&2 || true
fi
echo "install_check: libvkinfer.a: $(wc -l <"$tmp/globals") global symbols," \
  "$(grep -cvE '^vki_' "$tmp/globals" || true) of them not vki_*"

san=""
[ "$sanitize" = none ] || [ -z "$sanitize" ] || san="-fsanitize=$sanitize"
cflags=$(pkg-config --cflags vkinfer)
libs=$(pkg-config --libs vkinfer)
static_libs=$(pkg-config --libs vkinfer-static)
echo "install_check: pkg-config --cflags: $cflags"
echo "install_check: pkg-config --libs vkinfer: $libs"
echo "install_check: pkg-config --static --libs vkinfer: $(pkg-config --static --libs vkinfer)"
echo "install_check: pkg-config --libs vkinfer-static: $static_libs"
# The shader compiler is inside libvkinfer.a: nothing of it may be left to the app's link.
case " $static_libs $(pkg-config --static --libs vkinfer) " in
  *shaderc*|*glslang*|*SPIRV*|*MachineIndependent*|*GenericCodeGen*|*OSDependent*|*OGLCompiler*)
    fail "a static link line still names the shader compiler: $static_libs" ;;
esac

# An application's shared object with libvkinfer.a linked in: it exports its own
# function and the API, nothing of the engine, shaderc, glslang, SPIRV-Tools or libstdc++.
printf '%s\n' '#include <vkinfer.h>' \
  'unsigned app_version(void) { return vki_version(); }' >"$tmp/plugin.c"
# shellcheck disable=SC2086
if $cc $san -fPIC -shared $cflags -o "$tmp/plugin.so" "$tmp/plugin.c" $static_libs; then
  nm -D --defined-only "$tmp/plugin.so" | awk '{print $NF}' | sort >"$tmp/plugin_exported"
  grep -vE '^(vki_|app_version$|_init$|_fini$|_edata$|_end$|__bss_start$)' "$tmp/plugin_exported" \
    >"$tmp/plugin_extra" || true
  if [ -s "$tmp/plugin_extra" ]; then
    fail "a shared object built from libvkinfer.a exports $(wc -l <"$tmp/plugin_extra") symbols besides the API, e.g. $(head -5 "$tmp/plugin_extra" | tr '\n' ' ')"
  fi
  grep -E '^vki_' "$tmp/plugin_exported" >"$tmp/plugin_api" || true
  cmp -s "$tmp/api" "$tmp/plugin_api" ||
    fail "a shared object built from libvkinfer.a does not export exactly the API"
  if readelf -d "$tmp/plugin.so" | grep -E 'NEEDED.*(shaderc|glslang|SPIRV|vkinfer)' >"$tmp/needed"; then
    fail "a shared object built from libvkinfer.a needs $(tr '\n' ' ' <"$tmp/needed")"
  fi
  echo "install_check: a shared object from libvkinfer.a: $(wc -l <"$tmp/plugin_exported") dynamic symbols defined," \
    "$(wc -l <"$tmp/plugin_api") of them the API"
else
  fail "linking libvkinfer.a into a shared object with pkg-config --libs vkinfer-static failed"
fi

# ---- an application, built with pkg-config's flags only ----
# shellcheck disable=SC2086
$cc -std=c11 -Wall -Wextra -pedantic -Werror $san $cflags -c "$src/tests/install_check.c" \
  -o "$tmp/app.o"
# shellcheck disable=SC2086
$cc $san -o "$tmp/app_static" "$tmp/app.o" $static_libs ||
  fail "linking against libvkinfer.a with pkg-config --libs vkinfer-static failed"
# shellcheck disable=SC2086
$cc $san -o "$tmp/app_shared" "$tmp/app.o" $libs ||
  fail "linking against libvkinfer.so with pkg-config --libs failed"
if command -v c++ >/dev/null 2>&1; then
  printf '%s\n' '#include <vkinfer.h>' '#include <vkinfer_decode.h>' \
    'int main() { return vki_version() == VKI_VERSION ? 0 : 1; }' >"$tmp/cxx.cc"
  # shellcheck disable=SC2086
  c++ -Wall -Wextra -pedantic -Werror $cflags -fsyntax-only "$tmp/cxx.cc" ||
    fail "vkinfer.h or vkinfer_decode.h does not compile as C++"
fi

if [ -x "$tmp/app_static" ]; then
  readelf -d "$tmp/app_static" | grep -q 'NEEDED.*libvkinfer' &&
    fail "the static application needs libvkinfer.so"
  out=$("$tmp/app_static") || fail "the static application failed"
  [ "${out:-}" = "$version" ] || fail "the static application says version '${out:-}', the .pc $version"
fi
if [ -x "$tmp/app_shared" ]; then
  readelf -d "$tmp/app_shared" | grep -q "NEEDED.*\[$soname\]" ||
    fail "the shared application does not need $soname"
  # The destdir first; the rest of the path stays for a Vulkan loader installed off the
  # default paths.
  path=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  LD_LIBRARY_PATH=$path ldd "$tmp/app_shared" | grep -q "$soname => $libdir/$soname" ||
    fail "the shared application does not load $libdir/$soname"
  out=$(LD_LIBRARY_PATH=$path "$tmp/app_shared") || fail "the shared application failed"
  [ "${out:-}" = "$version" ] || fail "the shared application says version '${out:-}', the .pc $version"
fi

# ---- CMake: find_package(vkinfer), both targets, a graph run through each ----
prefix_dir=$(dirname "$(dirname "$header")")
cmake_config=$(find "$dest" -name vkinferConfig.cmake)
if [ -z "$cmake_config" ]; then
  fail "no vkinferConfig.cmake installed"
elif ! command -v cmake >/dev/null 2>&1; then
  fail "cmake is not installed (tools/setup.sh installs it)"
else
  echo "install_check: $cmake_config"
  [ -f "$(dirname "$cmake_config")/vkinferConfigVersion.cmake" ] ||
    fail "vkinferConfigVersion.cmake is not installed beside vkinferConfig.cmake"
  # A moved copy of the installed tree: the package finds its prefix from where it is.
  moved=$tmp/moved
  cp -a "$prefix_dir" "$moved"
  if cmake -S "$src/tests/cmake_consumer" -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$moved" \
       -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="${cc%% *}" \
       -DCMAKE_C_FLAGS="$san" -DCMAKE_EXE_LINKER_FLAGS="$san" >"$tmp/cmake.log" 2>&1 &&
     cmake --build "$tmp/cmake" >>"$tmp/cmake.log" 2>&1; then
    grep 'vkinfer .* from' "$tmp/cmake.log" | sed 's/^-- /install_check: cmake: /'
    grep -q "from $moved/" "$tmp/cmake.log" || fail "CMake did not take the package of the moved tree"
    readelf -d "$tmp/cmake/consumer_static" | grep -q 'NEEDED.*libvkinfer' &&
      fail "consumer_static (vkinfer::vkinfer_static) needs libvkinfer.so"
    readelf -d "$tmp/cmake/consumer_shared" | grep -q "NEEDED.*\[$soname\]" ||
      fail "consumer_shared (vkinfer::vkinfer) does not need $soname"
    for kind in static shared; do
      if out=$("$tmp/cmake/consumer_$kind" "$model" 2>"$tmp/consumer.err"); then
        echo "install_check: cmake consumer_$kind ran $(basename "$model"): $out"
      else
        cat "$tmp/consumer.err" >&2
        fail "the CMake consumer_$kind failed on $model"
      fi
    done
  else
    cat "$tmp/cmake.log" >&2
    fail "the CMake consumer (tests/cmake_consumer) did not configure or build"
  fi
fi

# ---- a fully static executable: refused with a status, not a crash in dlopen ----
if [ -z "$san" ]; then
  # shellcheck disable=SC2086
  if $cc -static -std=c11 $cflags -o "$tmp/app_fully_static" \
       "$src/tests/cmake_consumer/main.c" $static_libs >"$tmp/static.log" 2>&1; then
    rc=0
    "$tmp/app_fully_static" "$model" >/dev/null 2>"$tmp/static.err" || rc=$?
    if [ "$rc" -eq 3 ]; then
      echo "install_check: a -static executable: $(cat "$tmp/static.err")"
    else
      cat "$tmp/static.err" >&2
      fail "a -static executable exited $rc, not 3 (VKI_ERROR_NO_DEVICE naming the static executable)"
    fi
  else
    cat "$tmp/static.log" >&2
    fail "a -static executable did not link against libvkinfer.a"
  fi
fi

if [ "$failures" -ne 0 ]; then
  echo "install_check: $failures failures" >&2
  exit 1
fi
echo "install_check: ok ($version)"
