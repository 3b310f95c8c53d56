#!/usr/bin/env bash
# Run 2: split with hi by masking the f32 bits (run 1's check lost the lo parts); block shapes and
# PIPE per head dim; short lengths, split against portable.
set -uo pipefail
o=/tmp/s2; mkdir -p $o
r="bash .device/on-device.sh"
timeout 200 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
b() { timeout 60 $r .device/sdpa bench --fused-only --dtype f32 --budget-ms 50 "$@"; }
for pipe in 0 1; do
  for bl in 64x16 64x32 128x16; do
    WGPU_SDPA_TUNE=coop_pipe=$pipe b --hdim 64,80,128 --len 4096 --blocks $bl > $o/p${pipe}_$bl.txt 2>&1
  done
done
b --hdim 64,80,128 --len 32,64,128,256,512 > $o/short_split.txt 2>&1
b --portable --hdim 64,80,128 --len 32,64,128,256,512 > $o/short_portable.txt 2>&1
tar -C /tmp -czf $OUT/s2.tgz s2
