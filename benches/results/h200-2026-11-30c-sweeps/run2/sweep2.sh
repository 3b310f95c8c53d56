#!/usr/bin/env bash
# Run 2: 128 x 64 blocks with 8 keys per thread (TALL_BLOCKS) as the default for d > 64 on GPUs:
# against portable_tall=0 (the previous default), f32 and f16 (portable), other block shapes.
set -uo pipefail
o=/tmp/s2; mkdir -p $o
r="bash .device/on-device.sh"
P=".device/pipeline_stats"
regs() { grep -h "Register Count\|^plan" | cut -c1-160 | tr '\n' ' '; }
for d in 80 96 128; do
  echo "f32 d$d tall: $($r $P --q-len 4096 --hdim $d --dtype f32 --portable 2>&1 | regs)" >> $o/regs.txt
done
$r .device/sdpa check > $o/check.txt 2>&1
for k in none portable_tall=0; do
  WGPU_SDPA_TUNE=$k $r .device/sdpa bench --fused-only --portable --dtype f32 --hdim 80,96,112,128 --len 512,1024,2048,4096 --budget-ms 100 > $o/p32-$k.txt 2>&1
  WGPU_SDPA_TUNE=$k $r .device/sdpa bench --fused-only --portable --dtype f32 --hdim 80,128 --len 4096 --mask causal --budget-ms 100 > $o/p32c-$k.txt 2>&1
  WGPU_SDPA_TUNE=$k $r .device/sdpa bench --fused-only --portable --dtype f32 --hdim 128 --len 4096 --heads 32,8 --budget-ms 100 > $o/p32g-$k.txt 2>&1
  WGPU_SDPA_TUNE=$k $r .device/sdpa bench --fused-only --portable --dtype f16 --hdim 80,128 --len 1024,4096 --budget-ms 100 > $o/p16-$k.txt 2>&1
done
WGPU_SDPA_TUNE=portable_keys=4 $r .device/sdpa bench --fused-only --portable --dtype f32 --hdim 80,128 --len 4096 --blocks 128x64 --budget-ms 100 > $o/p32-keys4-128x64.txt 2>&1
WGPU_SDPA_TUNE=portable_keys=8 $r .device/sdpa bench --fused-only --portable --dtype f32 --hdim 80,128 --len 4096 --blocks 96x64 --budget-ms 100 > $o/p32-keys8-96x64.txt 2>&1
for pf in 4 8; do
  WGPU_SDPA_TUNE=portable_prefetch=$pf $r .device/sdpa bench --fused-only --portable --dtype f32 --hdim 80,128 --len 4096 --budget-ms 100 > $o/p32-pf$pf.txt 2>&1
done
tar -C /tmp -czf $OUT/s2.tgz s2
