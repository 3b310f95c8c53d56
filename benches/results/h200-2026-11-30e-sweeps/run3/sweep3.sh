set -uo pipefail
o=/tmp/s3; mkdir -p $o
run="bash .device/on-device.sh .device/sdpa"
for dt in f32 f16; do
  $run bench --fused-only --dtype $dt --hdim 64,128 --len 9,16,32 --kv-len 4096,16384 --heads 32,8 > $o/planner-$dt.txt 2>&1
  WGPU_SDPA_TUNE=decode_max_q=32 $run bench --fused-only --dtype $dt --hdim 64,128 --len 9,16,32 --kv-len 4096,16384 --heads 32,8 > $o/vector-$dt.txt 2>&1
  WGPU_SDPA_TUNE=decode_max_q=32 $run bench --fused-only --dtype $dt --hdim 64,128 --len 16,32 --kv-len 4096,16384 --heads 32,32 > $o/vector-mha-$dt.txt 2>&1
  $run bench --fused-only --dtype $dt --hdim 64,128 --len 16,32 --kv-len 4096,16384 --heads 32,32 > $o/planner-mha-$dt.txt 2>&1
done
tar -C /tmp -czf $OUT/s3.tgz s3
