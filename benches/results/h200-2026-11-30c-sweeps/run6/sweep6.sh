#!/usr/bin/env bash
# Run 6: the cooperative kernel's software-pipelined loop (PIPE, knob coop_pipe) at head dim 64
# again, now that its module is our own SPIR-V; and the one-tile-at-a-time loop at d80/d128.
set -uo pipefail
o=/tmp/s6; mkdir -p $o
r="bash .device/on-device.sh"
B="--fused-only --dtype f16 --len 1024,4096 --budget-ms 60"
for k in none coop_pipe=1 coop_pipe=0; do
  WGPU_SDPA_TUNE=$k $r .device/sdpa bench $B --hdim 64,80,128 > $o/coop-$k.txt 2>&1
  WGPU_SDPA_TUNE=$k $r .device/sdpa bench $B --hdim 64 --blocks 128x32 > $o/coop-$k-128x32.txt 2>&1
  WGPU_SDPA_TUNE=$k $r .device/sdpa bench $B --hdim 64,128 --mask causal > $o/coopc-$k.txt 2>&1
done
tar -C /tmp -czf $OUT/s6.tgz s6
