#!/usr/bin/env bash
# Run 8: the portable kernel's register prefetch depth against registers and time (wide tiles).
set -uo pipefail
o=/tmp/s8; mkdir -p $o
r="bash .device/on-device.sh"
P=".device/pipeline_stats"
regs() { grep -h "Register Count" | awk '{print $3}' | tr '\n' ' '; }
for k in none portable_prefetch=0 portable_prefetch=4 portable_prefetch=8 portable_prefetch=12; do
  for d in 80 128; do
    echo "f32 d$d $k regs $(WGPU_SDPA_TUNE=$k $r $P --q-len 4096 --hdim $d --dtype f32 2>&1 | regs)" >> $o/regs.txt
  done
  WGPU_SDPA_TUNE=$k $r .device/sdpa bench --portable --dtype f32 --hdim 80,128 --len 1024,4096 --fused-only --budget-ms 100 > $o/p32-$k.txt 2>&1
done
tar -C /tmp -czf $OUT/s8.tgz s8
