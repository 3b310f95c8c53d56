#!/usr/bin/env bash
# Run 11: block shapes of the cooperative kernel at head dim 64 not measured before (f16 L = 4096).
set -uo pipefail
o=/tmp/s11; mkdir -p $o
r="bash .device/on-device.sh"
for b in 64x32 32x32 64x16 64x48 128x16 32x64 128x48 96x32; do
  $r .device/sdpa bench --fused-only --dtype f16 --hdim 64 --len 4096 --blocks $b --budget-ms 60 > $o/b$b.txt 2>&1
done
tar -C /tmp -czf $OUT/s11.tgz s11
