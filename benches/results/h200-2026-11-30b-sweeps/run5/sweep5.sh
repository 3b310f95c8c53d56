#!/usr/bin/env bash
# Run 5: cooperative kernel's blocks (registers and time); the portable kernel's new defaults
# (wide keys) over the seed's f32 lengths.
set -uo pipefail
o=/tmp/s5; mkdir -p $o
r="bash .device/on-device.sh"
P=".device/pipeline_stats"
regs() { grep -h "Register Count" | awk '{print $3}' | tr '\n' ' '; }
for d in 64 128; do
  for bl in 64x32 128x32 64x64 128x64 64x128 32x64 32x128; do
    echo "coop d$d $bl regs $($r $P --q-len 4096 --hdim $d --dtype f16 --blocks $bl 2>&1 | regs)" >> $o/coop-regs.txt
    $r .device/sdpa bench --dtype f16 --hdim $d --len 4096 --fused-only --blocks $bl --budget-ms 100 > $o/coop-d$d-$bl.txt 2>&1
  done
done
$r .device/sdpa bench --portable --dtype f32 --hdim 64,80,128 --len 32,64,128,256,512,1024,2048,4096 --budget-ms 100 > $o/p32-seed.txt 2>&1
$r .device/sdpa bench --portable --dtype f32 --hdim 128 --heads 32,8 --len 4096 --budget-ms 100 > $o/p32-gqa.txt 2>&1
$r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
tar -C /tmp -czf $OUT/s5.tgz s5
