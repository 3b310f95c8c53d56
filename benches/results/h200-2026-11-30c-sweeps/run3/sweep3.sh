#!/usr/bin/env bash
# Run 3: where the portable kernel's time goes (knob portable_ablate, wrong results on purpose),
# f32 L = 4096; the cooperative d64 kernel's parts (coop_ablate); the driver's internal
# representations (pipeline_stats --ir), if NVIDIA gives any.
set -uo pipefail
o=/tmp/s3; mkdir -p $o
r="bash .device/on-device.sh"
P=".device/pipeline_stats"
$r $P --q-len 4096 --hdim 128 --dtype f32 --portable --ir $o/ir-f32-d128 > $o/ir-f32-d128.txt 2>&1
$r $P --q-len 4096 --hdim 128 --dtype f16 --ir $o/ir-f16-d128-coop > $o/ir-f16-d128-coop.txt 2>&1
for a in 0 1 2 4 8 3 11 15; do
  WGPU_SDPA_TUNE=portable_ablate=$a $r .device/sdpa bench --fused-only --portable --dtype f32 --hdim 64,80,128 --len 4096 --budget-ms 60 > $o/abl-$a.txt 2>&1
done
for a in 0 1 2 4 8 16 15 31; do
  WGPU_SDPA_TUNE=coop_ablate=$a $r .device/sdpa bench --fused-only --dtype f16 --hdim 64 --len 4096 --budget-ms 60 > $o/coop-abl-$a.txt 2>&1
done
tar -C /tmp -czf $OUT/s3.tgz s3
