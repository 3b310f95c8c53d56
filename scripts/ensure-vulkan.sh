#!/usr/bin/env bash
# Sourced by scripts/sdpa and scripts/test: makes sure wgpu finds an adapter. On Linux without a
# Vulkan driver (a CI box, a GPU-less server) it installs Mesa's lavapipe, a Vulkan driver that
# runs on the CPU. On a Mac (Metal) or a machine with a GPU driver it does nothing.
if [ "$(uname -s)" = Linux ]; then
  have_driver=""
  for json in /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json; do
    if [ -e "$json" ]; then have_driver=yes; fi
  done
  if [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}${have_driver}" ]; then
    echo "no Vulkan driver found: installing Mesa's lavapipe (apt-get install mesa-vulkan-drivers)" >&2
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq mesa-vulkan-drivers >/dev/null
  fi
  # Mesa's Vulkan drivers warn without it, even headless.
  export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
fi
if ! command -v cargo >/dev/null 2>&1; then
  echo "cargo not found: install Rust from https://rustup.rs first" >&2
  exit 2
fi
