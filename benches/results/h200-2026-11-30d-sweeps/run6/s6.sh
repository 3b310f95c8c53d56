#!/usr/bin/env bash
# Run 6: f16 d64 blocks that read K/V fewer times per head (128 rows), and 64-key tiles.
set -uo pipefail
o=/tmp/s6; mkdir -p $o
r="bash .device/on-device.sh"
b() { timeout 60 $r .device/sdpa bench --fused-only --budget-ms 60 --dtype f16 --hdim 64 --len 4096 "$@"; }
b > $o/default.txt 2>&1
for pipe in 0 1; do
  WGPU_SDPA_TUNE=coop_pipe=$pipe b --blocks 128x32 > $o/p${pipe}_128x32.txt 2>&1
  WGPU_SDPA_TUNE=coop_pipe=$pipe b --blocks 64x64 > $o/p${pipe}_64x64.txt 2>&1
done
WGPU_SDPA_TUNE=coop_pipe=0,coop_ablate=32 b --blocks 128x32 > $o/p0_128x32_ablate32.txt 2>&1
tar -C /tmp -czf $OUT/s6.tgz s6
