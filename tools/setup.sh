#!/bin/sh
# setup.sh: installs, from Debian 12 packages, what building, testing and fetching models
# needs. Installs only what is missing; needs root (or sudo) when something is.
set -eu
packages="gcc g++ libc6-dev meson ninja-build pkg-config python3 libvulkan-dev libvulkan1
  libvulkan-volk-dev libshaderc-dev libcriterion-dev libstb-dev mesa-vulkan-drivers
  vulkan-validationlayers cmake ca-certificates"
# npm fetches the models; any npm will do (some machines have Node.js from elsewhere).
command -v npm >/dev/null 2>&1 || packages="$packages npm"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "setup: installing$missing"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
