#!/usr/bin/env bash
# Run 12: f32 d80 with key blocks that match its 20 vec4 output columns (PV efficiency).
set -uo pipefail
o=/tmp/s12; mkdir -p $o
r="bash .device/on-device.sh"
P=".device/pipeline_stats"
for bl in 64x80 32x80 128x80 64x160 64x128 64x96 64x112; do
  echo "$bl: $($r $P --q-len 4096 --hdim 80 --dtype f32 --blocks $bl 2>&1 | grep -h 'Register Count\|^plan' | head -2 | cut -c1-110 | tr '\n' ' ')" >> $o/regs.txt
  $r .device/sdpa bench --portable --dtype f32 --hdim 80 --len 256,1024,4096 --fused-only --blocks $bl --budget-ms 100 > $o/p32-d80-$bl.txt 2>&1
done
tar -C /tmp -czf $OUT/s12.tgz s12
