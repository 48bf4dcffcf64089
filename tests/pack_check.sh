#!/bin/sh
# pack_check.sh SOURCE_DIR BUILD_DIR VKINFER MESON MODEL_DIR
#
# Kernel packs end to end. Configures and builds, in BUILD_DIR/pack-check/, the library
# and CLI without the shader compiler (-Dcompiler=disabled -Dtests=false), then checks
#   - its libvkinfer.so links no shaderc, glslang, SPIRV-Tools or libstdc++, holds no
#     GLSL source, and is at most 1.5 MiB stripped;
#   - VKINFER (the normal CLI, with the compiler) packs face_detection_short_range and
#     face_detection_full_range in fp32 (and fp16 where the device has fp16 storage);
#   - the compiler-less CLI runs face_detection_short_range from the pack with outputs
#     byte for byte those of VKINFER compiling its kernels, in each precision, and with
#     --image (the input-image kernel is packed too);
#   - a model the pack was not made for fails to build with VKI_ERROR_SHADER, naming the
#     op and the kernel missing: palm_detection_lite's input matches face_detection_full
#     _range's, so the first kernel missing is an op's;
#   - the compiler-less `pack` verb says it needs the compiler.
set -eu
src=$1 build=$2 full=$3 meson=$4 models=$5

dir=$build/pack-check
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vki_pack.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
failures=0
fail() {
  echo "pack_check: FAIL: $*" >&2
  failures=$((failures + 1))
}

if [ ! -f "$dir/build.ninja" ]; then
  "$meson" setup "$dir" "$src" -Dcompiler=disabled -Dtests=false >"$tmp/setup.log" 2>&1 ||
    { cat "$tmp/setup.log" >&2; echo "pack_check: meson setup failed" >&2; exit 1; }
fi
ninja -C "$dir" vkinfer libvkinfer.so.0.1.0 >"$tmp/build.log" 2>&1 ||
  { tail -30 "$tmp/build.log" >&2; echo "pack_check: the compiler-less build failed" >&2; exit 1; }
so=$dir/libvkinfer.so.0.1.0
nocc=$dir/vkinfer

# ---- what the library holds --------------------------------------------------------------
if readelf -d "$so" | grep NEEDED | grep -q 'stdc++'; then fail "libvkinfer.so needs libstdc++"; fi
n=$(nm "$so" | grep -ciE 'shaderc|glslang|spvtools|spv_|_ZN' || true)
[ "$n" -eq 0 ] || fail "libvkinfer.so has $n shaderc/glslang/SPIRV-Tools/C++ symbols"
n=$(strings "$so" | grep -cE 'local_size_x_id|#version 450' || true)
[ "$n" -eq 0 ] || fail "libvkinfer.so holds GLSL text ($n lines)"
strip -o "$tmp/stripped.so" "$so"
size=$(wc -c <"$tmp/stripped.so")
echo "pack_check: compiler-less libvkinfer.so: $size bytes stripped"
[ "$size" -le 1572864 ] || fail "stripped libvkinfer.so is $size bytes, more than 1.5 MiB"

# ---- packs, and runs from them -----------------------------------------------------------
face=$models/face_detection_short_range.tflite
face_full=$models/face_detection_full_range.tflite
palm=$models/palm_detection_lite.tflite
photo=$models/astronaut.png
precisions=fp32
"$full" info | grep -q 'fp16 storage yes' && precisions=fp32,fp16
"$full" pack "$face" "$face_full" --precision "$precisions" -o "$tmp/app.vkpack" --no-cache \
  >"$tmp/pack.log" 2>&1 || { cat "$tmp/pack.log" >&2; fail "vkinfer pack failed"; }
cat "$tmp/pack.log"
for p in $(echo "$precisions" | tr , ' '); do
  flag=""
  [ "$p" = fp16 ] && flag=--fp16
  "$full" run "$face" $flag --no-cache --save "$tmp/compiled-$p" >"$tmp/compiled-$p.log" 2>&1 ||
    { cat "$tmp/compiled-$p.log" >&2; fail "$p: the compiled run failed"; continue; }
  "$nocc" run "$face" $flag --no-cache --kernel-pack "$tmp/app.vkpack" --save "$tmp/packed-$p" \
    >"$tmp/packed-$p.log" 2>&1 || { cat "$tmp/packed-$p.log" >&2; fail "$p: the run from the pack failed"; continue; }
  grep -q 'kernels from the pack' "$tmp/packed-$p.log" || fail "$p: no kernel came from the pack"
  for f in "$tmp/compiled-$p"/output_*.f32; do
    cmp -s "$f" "$tmp/packed-$p/$(basename "$f")" || fail "$p: $(basename "$f") differs from the compiled run's"
  done
  echo "pack_check: $p: outputs from the pack are the compiled run's, byte for byte"
done
if [ -f "$photo" ]; then
  "$nocc" run "$face" --image "$photo" --no-cache --kernel-pack "$tmp/app.vkpack" >"$tmp/image.log" 2>&1 ||
    { cat "$tmp/image.log" >&2; fail "--image from the pack failed"; }
  grep -q '1 found' "$tmp/image.log" || fail "--image from the pack found no face"
fi

# ---- what a pack lacks -------------------------------------------------------------------
if "$nocc" run "$palm" --no-cache --kernel-pack "$tmp/app.vkpack" >"$tmp/missing.log" 2>&1; then
  fail "palm_detection_lite built from a pack made for other models"
fi
for want in VKI_ERROR_SHADER 'op [0-9]* [A-Z_0-9]*: kernel [a-z_0-9]* (fp32' 'is in no kernel pack'; do
  grep -q "$want" "$tmp/missing.log" || fail "the missing kernel's message lacks '$want'"
done
sed 's/^/pack_check: missing: /' "$tmp/missing.log"
if "$nocc" pack "$face" -o "$tmp/none.vkpack" >"$tmp/nopack.log" 2>&1; then
  fail "pack worked without the compiler"
fi
grep -q 'no shader compiler' "$tmp/nopack.log" || fail "pack without the compiler does not say why"

[ "$failures" -eq 0 ] || { echo "pack_check: $failures failure(s)" >&2; exit 1; }
echo "pack_check: ok"
