#!/usr/bin/env bash
# Run 9: wide tiles with 4 and 8 query rows per thread (registers and time).
set -uo pipefail
o=/tmp/s9; mkdir -p $o
r="bash .device/on-device.sh"
P=".device/pipeline_stats"
regs() { grep -h "Register Count\|^plan" | cut -c1-120 | tr '\n' ' '; }
for k in none portable_rows=4 portable_rows=8; do
  for d in 80 128; do
    echo "f32 d$d $k: $(WGPU_SDPA_TUNE=$k $r $P --q-len 4096 --hdim $d --dtype f32 2>&1 | regs)" >> $o/regs.txt
  done
  WGPU_SDPA_TUNE=$k $r .device/sdpa bench --portable --dtype f32 --hdim 80,128 --len 256,1024,4096 --budget-ms 100 > $o/p32-$k.txt 2>&1
done
tar -C /tmp -czf $OUT/s9.tgz s9
