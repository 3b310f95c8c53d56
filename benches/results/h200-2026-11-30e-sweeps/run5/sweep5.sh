set -uo pipefail
o=/tmp/s5; mkdir -p $o
run="bash .device/on-device.sh .device/sdpa"
lens=256,1024,4096,16384,32768,65536,131072
$run bench --decode --len $lens --json $o/decode.json > $o/decode.txt 2>&1
WGPU_SDPA_TUNE=decode_warp=0 $run bench --decode --len $lens > $o/decode-block.txt 2>&1
for w in 132 528 1056; do WGPU_SDPA_TUNE=decode_wgs=$w $run bench --decode --len 4096,16384,32768,131072 > $o/decode-wgs$w.txt 2>&1; done
for s in 4 16; do WGPU_SDPA_TUNE=decode_warp_sg=$s $run bench --decode --len 4096,16384,32768,131072 > $o/decode-sg$s.txt 2>&1; done
WGPU_SDPA_TUNE=decode_ablate=1 $run bench --decode --len $lens > $o/decode-noreduce.txt 2>&1
WGPU_SDPA_REQUIRE_ADAPTER=1 bash .device/on-device.sh .device/t/decode --test-threads=1 > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
$run check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
tar -C /tmp -czf $OUT/s5.tgz s5
