#!/usr/bin/env bash
# Sweep 5: the zero accumulator as a constant (coop_zconst=1); causal blocks of 128 rows up to d64.
set -u
o=/tmp/s5; mkdir -p $o
r="bash .device/on-device.sh"
export HOME=/tmp/home; mkdir -p $HOME
export __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1
for k in base coop_zconst=1; do
  export __GL_SHADER_DISK_CACHE_PATH=$o/cache-$k; mkdir -p $__GL_SHADER_DISK_CACHE_PATH
  WGPU_SDPA_TUNE=$k $r .device/pipeline_stats --heads 32,32 --q-len 4096 --hdim 128 --dtype f16 --dump-spirv $o/spv-$k > $o/ps-$k.txt 2>&1
done
export __GL_SHADER_DISK_CACHE_PATH=$o/cache-rest; mkdir -p $__GL_SHADER_DISK_CACHE_PATH
new="$r .device/sdpa"
WGPU_SDPA_TUNE=coop_zconst=1 $new check --filter "coop" > $o/check-z.txt 2>&1
a="--fused-only --dtype f16 --len 4096 --hdim 64,128 --mask none,causal"
for i in 1 2; do
  $new bench $a > $o/base$i.txt 2>&1
  WGPU_SDPA_TUNE=coop_zconst=1 $new bench $a > $o/z$i.txt 2>&1
done
c="--fused-only --dtype f16 --len 4096 --hdim 32,48,64 --mask causal"
$new bench $c > $o/c128.txt 2>&1
WGPU_SDPA_TUNE=coop_bq=64,coop_bk=32 $new bench $c > $o/c64.txt 2>&1
tar -C /tmp -czf $OUT/s5.tgz s5
cd $o; tail -n 1 check-z.txt; grep -H "Register Count  " ps-*.txt
for f in base* z* c*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s/%s/%s:%s ", $4,$8,$9,$11}')"; done
