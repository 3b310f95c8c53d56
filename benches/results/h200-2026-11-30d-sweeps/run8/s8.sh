#!/usr/bin/env bash
# Run 8: chunked prefill (q_len < kv_len), f32: the planner (split from 512 x 512 positions)
# against the portable kernel, and unfused.
set -uo pipefail
o=/tmp/s8; mkdir -p $o
r="bash .device/on-device.sh"
b() { timeout 120 $r .device/sdpa bench --budget-ms 40 --dtype f32 --hdim 64,128 --len 32,128,256,512 --kv-len 4096,16384 "$@"; }
b > $o/planner.txt 2>&1
b --portable --fused-only > $o/portable.txt 2>&1
b --heads 32,8 --fused-only > $o/planner_gqa.txt 2>&1
b --heads 32,8 --portable --fused-only > $o/portable_gqa.txt 2>&1
tar -C /tmp -czf $OUT/s8.tgz s8
