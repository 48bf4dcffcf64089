#!/bin/sh
# install_check.sh BUILD_DIR SOURCE_DIR MESON CC SANITIZE
#
# The library as an application gets it: installs the build into a temporary directory
# (meson install --destdir), then checks
#   - vkinfer.pc needs no other .pc file (no Requires: Vulkan is loaded at run time);
#   - libvkinfer.so's SONAME is libvkinfer.so.<major> and it exports exactly the VKI_API
#     functions of the installed headers (vkinfer.h, vkinfer_decode.h);
#   - libvkinfer.a defines no global vk*/volk* symbol (which would clash with an
#     application's own volk or libvulkan), indeed no global symbol but the API;
#   - tests/install_check.c, built with the flags pkg-config gives and nothing else,
#     links and runs against libvkinfer.a and against libvkinfer.so.
# SANITIZE is the build's b_sanitize ("none" or e.g. "address,undefined"): a sanitized
# build installs instrumented libraries, so the application is built with it too.
set -eu
build=$1 src=$2 meson=$3 cc=$4 sanitize=$5

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

# ---- an application, built with pkg-config's flags only ----
san=""
[ "$sanitize" = none ] || [ -z "$sanitize" ] || san="-fsanitize=$sanitize"
cflags=$(pkg-config --cflags vkinfer)
libs=$(pkg-config --libs vkinfer)
static_libs=$(pkg-config --static --libs vkinfer)
echo "install_check: pkg-config --cflags: $cflags"
echo "install_check: pkg-config --libs: $libs"
echo "install_check: pkg-config --static --libs: $static_libs"
# shellcheck disable=SC2086
$cc -std=c11 -Wall -Wextra -pedantic -Werror $san $cflags -c "$src/tests/install_check.c" \
  -o "$tmp/app.o"
# Static: that line, with -lvkinfer as -l:libvkinfer.a because libvkinfer.so sits beside
# the archive and the linker would take it (README.md says the same).
static_line=$(echo " $static_libs " | sed 's/ -lvkinfer / -l:libvkinfer.a /')
# shellcheck disable=SC2086
$cc $san -o "$tmp/app_static" "$tmp/app.o" $static_line ||
  fail "linking against libvkinfer.a with pkg-config --static --libs failed"
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

if [ "$failures" -ne 0 ]; then
  echo "install_check: $failures failures" >&2
  exit 1
fi
echo "install_check: ok ($version)"
