#!/usr/bin/env bash
# Sweep 7: the constant zero accumulator (coop_zconst=1) at every f16 head dim, GQA and f32 split.
set -u
o=/tmp/s7; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"
WGPU_SDPA_TUNE=coop_zconst=1 $new check --filter "coop" > $o/check-z.txt 2>&1
a="--fused-only --dtype f16 --len 4096 --hdim 32,48,64,80,96,112,128 --mask none,causal"
g="--fused-only --dtype f16 --len 4096 --hdim 64,128 --heads 32,8"
f="--fused-only --dtype f32 --len 4096 --hdim 64,80,128"
for i in 1 2; do
  for k in base coop_zconst=1; do
    WGPU_SDPA_TUNE=$k $new bench $a > $o/$k-$i.txt 2>&1
    WGPU_SDPA_TUNE=$k $new bench $g > $o/gqa-$k-$i.txt 2>&1
  done
done
for k in base coop_zconst=1; do WGPU_SDPA_TUNE=$k $new bench $f > $o/f32-$k.txt 2>&1; done
tar -C /tmp -czf $OUT/s7.tgz s7
cd $o; tail -n 1 check-z.txt
for f in base* coop* gqa* f32*; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s/%s/%s/%s:%s ", $3,$4,$8,$9,$11}')"; done
