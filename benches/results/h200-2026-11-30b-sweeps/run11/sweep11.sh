#!/usr/bin/env bash
# Run 11: cooperative kernel without the one-tile-ahead word fetch (coop_prefetch=0): registers
# (Knob coop_prefetch existed only for this run: a tree of commit b7becdf plus it; not kept.)
# and time (d64: 129 registers, one over the 128 that would let 4 workgroups share an SM).
set -uo pipefail
o=/tmp/s11; mkdir -p $o
r="bash .device/on-device.sh"
P=".device/pipeline_stats"
regs() { grep -h "Register Count" | head -1 | awk '{print $3}'; }
for k in none coop_prefetch=0 coop_pipe=0 coop_pipe=0,coop_prefetch=0; do
  for d in 64 128; do
    echo "coop d$d $k regs $(WGPU_SDPA_TUNE=$k $r $P --q-len 4096 --hdim $d --dtype f16 2>&1 | regs)" >> $o/regs.txt
  done
  WGPU_SDPA_TUNE=$k $r .device/sdpa bench --dtype f16 --hdim 64,128 --len 1024,4096 --fused-only --budget-ms 100 > $o/coop-$k.txt 2>&1
  WGPU_SDPA_TUNE=$k $r .device/sdpa bench --dtype f16 --hdim 64,128 --len 4096 --mask causal --fused-only --budget-ms 100 > $o/coop-causal-$k.txt 2>&1
done
tar -C /tmp -czf $OUT/s11.tgz s11
