#!/usr/bin/env bash
# Sweep 3: unconditional next-tile fetch (coop_ufetch), P V per O fragment in both arms of the
# rescale branch (coop_rspv): machine code and time, against the commit before (sdpa-old).
set -u
o=/tmp/s3; mkdir -p $o
r="bash .device/on-device.sh"
export HOME=/tmp/home; mkdir -p $HOME
export __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1
for k in base coop_ufetch=1 coop_rspv=1 coop_ufetch=1,coop_rspv=1; do
  for d in 128 80; do
    export __GL_SHADER_DISK_CACHE_PATH=$o/cache-$k-d$d; mkdir -p $__GL_SHADER_DISK_CACHE_PATH
    WGPU_SDPA_TUNE=$k $r .device/pipeline_stats --heads 32,32 --q-len 4096 --hdim $d --dtype f16 > $o/ps-$k-d$d.txt 2>&1
  done
done
export __GL_SHADER_DISK_CACHE_PATH=$o/cache-rest; mkdir -p $__GL_SHADER_DISK_CACHE_PATH
new="$r .device/sdpa"; old="$r .device/sdpa-old"
WGPU_SDPA_TUNE=coop_ufetch=1,coop_rspv=1 $new check --filter "coop" > $o/check-both.txt 2>&1
a="--fused-only --dtype f16 --len 4096 --hdim 64,80,128 --mask none,causal"
for i in 1 2; do
  $old bench $a > $o/old$i.txt 2>&1
  for k in base coop_ufetch=1 coop_rspv=1 coop_ufetch=1,coop_rspv=1; do
    WGPU_SDPA_TUNE=$k $new bench $a > $o/new-$k-$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s3.tgz s3
