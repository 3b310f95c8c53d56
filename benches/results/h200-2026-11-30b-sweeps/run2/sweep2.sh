#!/usr/bin/env bash
# Run 2 (tree of commit a282105 plus the decode_kpre knob, since removed): next-tile K loads in the
# decode kernel, portable f32 blocks at L = 128, d64 with grid fill 128 (then uncommitted).
set -uo pipefail
o=/tmp/s2; mkdir -p $o
r="bash .device/on-device.sh"
L=1,256,4096,16384,32768,65536,131072
$r .device/sdpa bench --decode --fused-only --len $L --budget-ms 100 > $o/dec-base.txt 2>&1
for k in decode_kpre=1 decode_kpre=1,decode_wgs=396 decode_kpre=1,decode_wgs=528 decode_kpre=1,decode_wg=128; do
  WGPU_SDPA_TUNE=$k $r .device/sdpa bench --decode --fused-only --len $L --budget-ms 100 > $o/dec-$k.txt 2>&1
done
for bl in 16x64 32x64 32x32 64x32 16x32 16x128 32x128; do
  $r .device/sdpa bench --portable --dtype f32 --hdim 80,128 --len 128 --blocks $bl --budget-ms 60 > $o/p32-blocks-$bl.txt 2>&1
done
$r .device/sdpa bench --portable --dtype f32 --hdim 64 --len 32,64,128,256,512,1024 --budget-ms 60 > $o/p32-d64.txt 2>&1
which ncu nsys nvidia-smi > $o/tools.txt 2>&1; nvidia-smi -q | grep -i -A3 clocks >> $o/tools.txt 2>&1
tar -C /tmp -czf $OUT/s2.tgz s2
