#!/usr/bin/env bash
# Sweep 6: K/V word indices from offsets and strides divided first (coop_waddr=1).
set -u
o=/tmp/s6; mkdir -p $o
r="bash .device/on-device.sh"
export HOME=/tmp/home; mkdir -p $HOME
export __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1
for k in base coop_waddr=1; do
  export __GL_SHADER_DISK_CACHE_PATH=$o/cache-$k; mkdir -p $__GL_SHADER_DISK_CACHE_PATH
  WGPU_SDPA_TUNE=$k $r .device/pipeline_stats --heads 32,32 --q-len 4096 --hdim 128 --dtype f16 > $o/ps-$k.txt 2>&1
done
export __GL_SHADER_DISK_CACHE_PATH=$o/cache-rest; mkdir -p $__GL_SHADER_DISK_CACHE_PATH
new="$r .device/sdpa"
WGPU_SDPA_TUNE=coop_waddr=1 $new check --filter "coop" > $o/check-w.txt 2>&1
a="--fused-only --dtype f16 --len 4096 --hdim 64,80,128 --mask none,causal"
for i in 1 2; do
  $new bench $a > $o/base$i.txt 2>&1
  WGPU_SDPA_TUNE=coop_waddr=1 $new bench $a > $o/w$i.txt 2>&1
done
f="--fused-only --dtype f32 --len 4096 --hdim 64,128"
$new bench $f > $o/base32.txt 2>&1; WGPU_SDPA_TUNE=coop_waddr=1 $new bench $f > $o/w32.txt 2>&1
tar -C /tmp -czf $OUT/s6.tgz s6
cd $o; tail -n 1 check-w.txt; grep -H "Register Count  \|Binary Size" ps-*.txt
for f in base* w*; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s/%s/%s:%s ", $4,$8,$9,$11}')"; done
