#!/usr/bin/env bash
# Run 1: the portable kernel with 8 keys per thread in S (CK = 8, knob portable_keys=8), f32.
set -uo pipefail
o=/tmp/s1; mkdir -p $o
r="bash .device/on-device.sh"
P=".device/pipeline_stats"
regs() { grep -h "Register Count\|^plan" | cut -c1-160 | tr '\n' ' '; }
for k in none portable_keys=8 portable_keys=8,portable_rows=8 portable_keys=8,portable_rows=4; do
  for d in 64 80 128; do
    echo "f32 d$d $k: $(WGPU_SDPA_TUNE=$k $r $P --q-len 4096 --hdim $d --dtype f32 --portable 2>&1 | regs)" >> $o/regs.txt
  done
  WGPU_SDPA_TUNE=$k $r .device/sdpa bench --fused-only --portable --dtype f32 --hdim 64,80,128 --len 256,1024,4096 --budget-ms 100 > $o/p32-$k.txt 2>&1
done
for k in portable_keys=8 portable_keys=8,portable_rows=8; do
  for b in 128x64 64x64; do
    WGPU_SDPA_TUNE=$k $r .device/sdpa bench --fused-only --portable --dtype f32 --hdim 64,80,128 --len 1024,4096 --blocks $b --budget-ms 100 > $o/p32-$k-$b.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s1.tgz s1
