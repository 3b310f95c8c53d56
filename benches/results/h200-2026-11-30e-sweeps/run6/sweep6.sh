set -uo pipefail
o=/tmp/s6; mkdir -p $o
run="bash .device/on-device.sh .device/sdpa"
lens=256,1024,4096,16384,32768,65536,131072
$run bench --decode --len $lens > $o/decode.txt 2>&1
WGPU_SDPA_TUNE=decode_warp_cpl=2 $run bench --decode --len $lens > $o/decode-cpl2.txt 2>&1
WGPU_SDPA_TUNE=decode_warp_pf=0 $run bench --decode --len $lens > $o/decode-pf0.txt 2>&1
WGPU_SDPA_TUNE=decode_warp_sg=4 $run bench --decode --len $lens > $o/decode-sg4.txt 2>&1
WGPU_SDPA_TUNE=decode_wgs=528 $run bench --decode --len $lens > $o/decode-wgs528.txt 2>&1
WGPU_SDPA_TUNE=decode_warp=0 $run bench --decode --len $lens > $o/decode-block.txt 2>&1
WGPU_SDPA_REQUIRE_ADAPTER=1 bash .device/on-device.sh .device/t/decode --test-threads=1 > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
tar -C /tmp -czf $OUT/s6.tgz s6
