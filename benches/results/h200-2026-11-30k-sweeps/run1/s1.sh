#!/usr/bin/env bash
# Sweep 1 (tenth session): the NVIDIA driver's compiled code for the cooperative kernel, through
# its shader disk cache (for nvdisasm off the machine).
set -u
R=/tmp/s1; mkdir -p $R
export HOME=/tmp/home; mkdir -p $HOME
export __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1
run() { name=$1; shift; export __GL_SHADER_DISK_CACHE_PATH=$R/cache-$name; mkdir -p $__GL_SHADER_DISK_CACHE_PATH
  bash .device/on-device.sh .device/pipeline_stats "$@" > $R/$name.txt 2>&1; echo "$name rc=$?"; }
run d128 --heads 32,32 --q-len 4096 --hdim 128 --dtype f16
run d64 --heads 32,32 --q-len 4096 --hdim 64 --dtype f16
run dec --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16
tar -C /tmp -czf $OUT/s1.tgz s1
