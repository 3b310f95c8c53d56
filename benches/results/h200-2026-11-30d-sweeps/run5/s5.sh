#!/usr/bin/env bash
# Run 5: f16 K/V words read as mat2x4<f16> (no unpack2x16float round trip): check, L = 4096 rows,
# the loads ablated again.
set -uo pipefail
o=/tmp/s5; mkdir -p $o
r="bash .device/on-device.sh"
timeout 200 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
b() { timeout 60 $r .device/sdpa bench --fused-only --budget-ms 60 "$@"; }
b --dtype f16,f32 --hdim 64,80,128 --len 4096 > $o/l4096.txt 2>&1
b --dtype f16 --hdim 64,128 --len 4096 --mask causal > $o/causal.txt 2>&1
WGPU_SDPA_TUNE=coop_ablate=32 b --dtype f16 --hdim 64,128 --len 4096 > $o/ablate32.txt 2>&1
tar -C /tmp -czf $OUT/s5.tgz s5
