#!/usr/bin/env bash
# Run 7: K and Q chunks fetched along their rows (coalesced loads, knob portable_krows=1) against
# along the keys / query rows (the default), portable kernel.
set -uo pipefail
o=/tmp/s7; mkdir -p $o
r="bash .device/on-device.sh"
B="--fused-only --portable --len 1024,4096 --budget-ms 60"
for k in none portable_krows=1; do
  WGPU_SDPA_TUNE=$k $r .device/sdpa bench $B --dtype f32 --hdim 64,80,96,128 > $o/p32-$k.txt 2>&1
  WGPU_SDPA_TUNE=$k $r .device/sdpa bench $B --dtype f16 --hdim 64,128 > $o/p16-$k.txt 2>&1
  WGPU_SDPA_TUNE=$k $r .device/sdpa bench $B --dtype f32 --hdim 128 --mask causal > $o/p32c-$k.txt 2>&1
done
WGPU_SDPA_TUNE=portable_krows=1 $r .device/sdpa check > $o/check-krows1.txt 2>&1
tar -C /tmp -czf $OUT/s7.tgz s7
