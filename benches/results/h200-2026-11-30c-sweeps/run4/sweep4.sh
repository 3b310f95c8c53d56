#!/usr/bin/env bash
# Run 4: P staged in halves (PH = 2, with 8 keys per thread): larger K/V/Q chunks, fewer steps.
set -uo pipefail
o=/tmp/s4; mkdir -p $o
r="bash .device/on-device.sh"
P=".device/pipeline_stats"
regs() { grep -h "Register Count\|^plan" | cut -c1-200 | tr '\n' ' '; }
B="--fused-only --portable --dtype f32 --len 4096 --budget-ms 60"
for k in none portable_pparts=1 portable_keys=8 portable_keys=8,portable_pparts=1; do
  WGPU_SDPA_TUNE=$k $r .device/sdpa bench $B --hdim 64,80,96,112,128 > $o/t-$k.txt 2>&1
  for b in 64x64 128x64 64x128; do
    WGPU_SDPA_TUNE=$k $r .device/sdpa bench $B --hdim 64,80,128 --blocks $b > $o/t-$k-$b.txt 2>&1
  done
  for d in 80 128; do
    echo "f32 d$d $k: $(WGPU_SDPA_TUNE=$k $r $P --q-len 4096 --hdim $d --dtype f32 --portable 2>&1 | regs)" >> $o/regs.txt
  done
done
for a in 3 4; do
  WGPU_SDPA_TUNE=portable_keys=8,portable_ablate=$a $r .device/sdpa bench $B --hdim 80,128 > $o/abl-keys8-$a.txt 2>&1
done
WGPU_SDPA_TUNE=portable_keys=8 $r .device/sdpa check > $o/check-keys8.txt 2>&1
tar -C /tmp -czf $OUT/s4.tgz s4
