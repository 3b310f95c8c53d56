#!/usr/bin/env bash
# Sweep 2: Q staged in parts of its head dims (no fragment arithmetic). Machine code, check, old vs new.
set -u
o=/tmp/s2; mkdir -p $o
r="bash .device/on-device.sh"
export HOME=/tmp/home; mkdir -p $HOME
export __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1
for d in 128 64; do
  export __GL_SHADER_DISK_CACHE_PATH=$o/cache-d$d; mkdir -p $__GL_SHADER_DISK_CACHE_PATH
  $r .device/pipeline_stats --heads 32,32 --q-len 4096 --hdim $d --dtype f16 > $o/ps-d$d.txt 2>&1
done
export __GL_SHADER_DISK_CACHE_PATH=$o/cache-rest; mkdir -p $__GL_SHADER_DISK_CACHE_PATH
new="$r .device/sdpa"; old="$r .device/sdpa-old"
$new check --filter "coop" > $o/check.txt 2>&1
a="--fused-only --dtype f16 --len 4096 --hdim 64,80,128 --mask none,causal"
b="--fused-only --dtype f32 --len 4096 --hdim 64,128"
for i in 1 2; do
  $old bench $a > $o/old$i.txt 2>&1; $new bench $a > $o/new$i.txt 2>&1
done
$old bench $b > $o/old32.txt 2>&1; $new bench $b > $o/new32.txt 2>&1
tar -C /tmp -czf $OUT/s2.tgz s2
