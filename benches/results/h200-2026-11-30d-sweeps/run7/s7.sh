#!/usr/bin/env bash
# Run 7: f32 head dims not in the seed's sweep, split (planner) against portable, L = 4096 and 1024.
set -uo pipefail
o=/tmp/s7; mkdir -p $o
r="bash .device/on-device.sh"
b() { timeout 90 $r .device/sdpa bench --fused-only --budget-ms 40 --dtype f32 --hdim 32,48,96,112 --len 1024,4096 "$@"; }
b > $o/split.txt 2>&1
b --portable > $o/portable.txt 2>&1
tar -C /tmp -czf $OUT/s7.tgz s7
