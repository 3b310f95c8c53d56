set -uo pipefail
o=/tmp/s4; mkdir -p $o
run="bash .device/on-device.sh .device/sdpa"
for h in 32,32 32,8; do for dt in f32 f16; do
  $run bench --dtype $dt --hdim 64,128 --len 9,16,32 --kv-len 16,32,64,128,256,512,1024,2048 --heads $h --budget-ms 100 > $o/fused-$dt-${h/,/-}.txt 2>&1
  WGPU_SDPA_TUNE=decode_max_q=32 $run bench --fused-only --dtype $dt --hdim 64,128 --len 9,16,32 --kv-len 16,32,64,128,256,512,1024,2048 --heads $h --budget-ms 100 > $o/vector-$dt-${h/,/-}.txt 2>&1
done; done
tar -C /tmp -czf $OUT/s4.tgz s4
