#!/usr/bin/env bash
# Run 10: decode with K and V loads through one function (load_chunk) instead of twins.
set -uo pipefail
o=/tmp/s10; mkdir -p $o
r="bash .device/on-device.sh"
$r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 2>&1 | grep "Register Count" > $o/regs.txt
$r .device/sdpa bench --decode --fused-only --len 256,4096,16384,32768,65536,131072 --budget-ms 100 > $o/dec.txt 2>&1
tar -C /tmp -czf $OUT/s10.tgz s10
