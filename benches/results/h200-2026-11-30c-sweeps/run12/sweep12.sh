#!/usr/bin/env bash
# Run 12: the same after the review refactor (put_p helper; timestamp readback shared; tall blocks only
# with chunks of 16 or more): the same tiles as the final run on this GPU.
set -uo pipefail
o=/tmp/s12; mkdir -p $o
r="bash .device/on-device.sh"
$r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
$r .device/sdpa bench --fused-only --dtype f32 --hdim 64,80,96,128 --len 4096 --budget-ms 60 > $o/p32.txt 2>&1
tar -C /tmp -czf $OUT/s12.tgz s12
