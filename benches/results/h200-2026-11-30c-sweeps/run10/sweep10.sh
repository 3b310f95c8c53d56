#!/usr/bin/env bash
# Run 10: sdpa check and the f32 L = 4096 rows on the tree after the final run (tall blocks only
# with chunks of 16 or more): the same tiles as the final run on this GPU.
set -uo pipefail
o=/tmp/s10; mkdir -p $o
r="bash .device/on-device.sh"
$r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
$r .device/sdpa bench --fused-only --dtype f32 --hdim 64,80,96,128 --len 4096 --budget-ms 60 > $o/p32.txt 2>&1
tar -C /tmp -czf $OUT/s10.tgz s10
