#!/usr/bin/env bash
# Run 15: the decode kernel with its first V loads at the tile start (VEARLY=1, the GPU default)
# or in step 3 (decode_vearly=0, the CPU-adapter default since SwiftShader compiled it 40x
# faster); and the check.
set -uo pipefail
o=/tmp/s15; mkdir -p $o
r="bash .device/on-device.sh"
for k in none decode_vearly=0; do
  WGPU_SDPA_TUNE=$k $r .device/sdpa bench --decode --fused-only --len 256,4096,16384,32768,131072 --budget-ms 100 > $o/dec-$k.txt 2>&1
done
$r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
tar -C /tmp -czf $OUT/s15.tgz s15
