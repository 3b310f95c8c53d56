set -uo pipefail
o=/tmp/s1; mkdir -p $o
run="bash .device/on-device.sh .device/sdpa"
lens=4096,16384,32768,131072
for v in none decode_pipe=1 decode_cpl=2 decode_pipe=1,decode_cpl=2 decode_pipe=1,decode_cpl=2,decode_wgs=396 decode_pipe=1,decode_cpl=2,decode_wgs=528 decode_pipe=1,decode_wg=128 decode_pipe=1,decode_wg=128,decode_wgs=528; do
  WGPU_SDPA_TUNE=$v $run bench --decode --len $lens > $o/decode-$v.txt 2>&1
  WGPU_SDPA_TUNE=$v bash .device/on-device.sh .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > $o/stats-$v.txt 2>&1
done
WGPU_SDPA_TUNE=none $run bench --decode --len $lens > $o/decode-none-again.txt 2>&1
WGPU_SDPA_TUNE=decode_pipe=1,decode_cpl=2 $run check --filter vector > $o/check-pipe.txt 2>&1
tar -C /tmp -czf $OUT/s1.tgz s1
