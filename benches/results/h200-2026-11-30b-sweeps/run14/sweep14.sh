#!/usr/bin/env bash
# Run 14: the decode kernel with VEC, ELEM_BYTES and MASK_KIND written into its source as consts
# (not pipeline constants): same speed? and the check.
set -uo pipefail
o=/tmp/s14; mkdir -p $o
r="bash .device/on-device.sh"
$r .device/sdpa bench --decode --fused-only --len 256,4096,16384,32768,131072 --budget-ms 100 > $o/dec.txt 2>&1
$r .device/sdpa check --filter vector > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
tar -C /tmp -czf $OUT/s14.tgz s14
