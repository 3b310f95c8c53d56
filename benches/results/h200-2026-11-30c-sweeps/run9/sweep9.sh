#!/usr/bin/env bash
# Run 9: block shapes again with coalesced, swizzled K/Q staging (f32, L = 1024 and 4096).
set -uo pipefail
o=/tmp/s9; mkdir -p $o
r="bash .device/on-device.sh"
B="--fused-only --portable --dtype f32 --hdim 64,80,96,128 --len 1024,4096 --budget-ms 60"
$r .device/sdpa bench $B > $o/default.txt 2>&1
for b in 128x64 64x128 64x64 64x32 128x32; do
  $r .device/sdpa bench $B --blocks $b > $o/b$b.txt 2>&1
  WGPU_SDPA_TUNE=portable_keys=8 $r .device/sdpa bench $B --blocks $b > $o/b$b-keys8.txt 2>&1
done
WGPU_SDPA_TUNE=portable_keys=8,portable_rows=8 $r .device/sdpa bench $B --blocks 64x128 > $o/b64x128-keys8-rows8.txt 2>&1
WGPU_SDPA_TUNE=portable_keys=4,portable_rows=8 $r .device/sdpa bench $B --blocks 128x64 > $o/b128x64-keys4-rows8.txt 2>&1
tar -C /tmp -czf $OUT/s9.tgz s9
