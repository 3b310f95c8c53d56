#!/usr/bin/env bash
# Run 3 (tree of commit cba8120 plus examples/pipeline_stats.rs, then on its branch): pipeline
# statistics (registers) of the planned kernels, SPIR-V compared with what wgpu hands the driver
# (check.sh, a capture layer libspvdump.so not kept); f32 d128 blocks; new defaults at short
# lengths; the decode floor.
set -uo pipefail
o=/tmp/s3; mkdir -p $o/stats
r="bash .device/on-device.sh"
$r bash .device/check.sh > $o/check-out.txt 2>&1
P=".device/pipeline_stats"
$r $P --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f32 > $o/stats/decode_f32.txt 2>&1
$r $P --q-len 4096 --heads 32,32 --hdim 64 --dtype f16 > $o/stats/prefill_f16_d64.txt 2>&1
$r $P --q-len 4096 --heads 32,32 --hdim 64 --dtype f32 > $o/stats/prefill_f32_d64.txt 2>&1
$r $P --q-len 4096 --heads 32,32 --hdim 80 --dtype f32 > $o/stats/prefill_f32_d80.txt 2>&1
for bl in 64x32 64x48 64x128 32x64 32x128 64x80; do
  $r .device/sdpa bench --portable --dtype f32 --hdim 128 --len 1024,4096 --fused-only --blocks $bl --budget-ms 100 > $o/p32-d128-$bl.txt 2>&1
done
$r .device/sdpa bench --portable --dtype f32 --hdim 80,128 --len 32,64,128,256,512 --budget-ms 60 > $o/p32-short.txt 2>&1
$r .device/sdpa bench --decode --len 1,64,256 --budget-ms 60 > $o/dec-floor.txt 2>&1
$r .device/sdpa bench --decode --heads 1,1 --len 1,256 --budget-ms 60 > $o/dec-floor-1head.txt 2>&1
tar -C /tmp -czf $OUT/s3.tgz s3
