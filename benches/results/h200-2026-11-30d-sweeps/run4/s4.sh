#!/usr/bin/env bash
# Run 4 (commit 97d2b85): after the p_lo refactor, the check and the L = 4096 rows again; the
# cooperative kernel's staging split into loads and workgroup writes (coop_ablate 32 against 1).
set -uo pipefail
o=/tmp/s4; mkdir -p $o
r="bash .device/on-device.sh"
timeout 200 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
b() { timeout 60 $r .device/sdpa bench --fused-only --budget-ms 60 "$@"; }
b --dtype f16,f32 --hdim 64,80,128 --len 4096 > $o/l4096.txt 2>&1
for a in 0 1 32; do
  WGPU_SDPA_TUNE=coop_ablate=$a b --dtype f16 --hdim 64,128 --len 4096 > $o/ablate$a.txt 2>&1
done
WGPU_SDPA_TUNE=coop_pipe=0 b --dtype f32 --hdim 128 --len 4096 > $o/split_pipe0.txt 2>&1
tar -C /tmp -czf $OUT/s4.tgz s4
