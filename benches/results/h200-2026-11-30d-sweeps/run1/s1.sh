#!/usr/bin/env bash
# Run 1: the first f32-on-f16-fragments ("split") kernel: the check matrix, then f32 L=4096 split
# against the portable kernel and unfused; PIPE on/off and block shapes.
set -uo pipefail
o=/tmp/s1; mkdir -p $o
r="bash .device/on-device.sh"
$r .device/sdpa info > $o/info.txt 2>&1
timeout 200 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
timeout 100 $r .device/sdpa bench --dtype f32 --hdim 64,80,128 --len 4096 --budget-ms 60 > $o/split.txt 2>&1
timeout 60 $r .device/sdpa bench --fused-only --dtype f32 --hdim 64,128 --len 4096 --mask causal --budget-ms 60 > $o/split_causal.txt 2>&1
timeout 60 $r .device/sdpa bench --portable --fused-only --dtype f32 --hdim 64,128 --len 4096 --budget-ms 60 > $o/portable.txt 2>&1
for k in coop_pipe=0 coop_pipe=1; do
  WGPU_SDPA_TUNE=$k timeout 60 $r .device/sdpa bench --fused-only --dtype f32 --hdim 64,80,128 --len 4096 --budget-ms 60 > $o/split_$k.txt 2>&1
done
for b in 64x16 64x32 128x16 32x32; do
  timeout 60 $r .device/sdpa bench --fused-only --dtype f32 --hdim 64,128 --len 4096 --blocks $b --budget-ms 60 > $o/split_b$b.txt 2>&1
done
timeout 60 $r .device/sdpa bench --dtype f32 --hdim 64,128 --len 32,256,1024 --budget-ms 40 > $o/split_short.txt 2>&1
tar -C /tmp -czf $OUT/s1.tgz s1
