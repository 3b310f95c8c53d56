set -uo pipefail
o=/tmp/s2; mkdir -p $o
run="bash .device/on-device.sh .device/sdpa"
lens=256,1024,4096,16384,32768,65536,131072
$run bench --decode --len $lens --json $o/decode.json > $o/decode.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens 256 1024 4096 16384 32768 65536 131072 > $o/torch-decode.txt 2>&1
$run bench --decode --len $lens > $o/decode-again.txt 2>&1
WGPU_SDPA_TUNE=decode_ablate=1 $run bench --decode --len $lens > $o/decode-noreduce.txt 2>&1
for w in 396 528 792; do WGPU_SDPA_TUNE=decode_wgs=$w $run bench --decode --len 4096,16384,32768,131072 > $o/decode-wgs$w.txt 2>&1; done
WGPU_SDPA_REQUIRE_ADAPTER=1 bash .device/on-device.sh .device/t/decode --test-threads=1 > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
tar -C /tmp -czf $OUT/s2.tgz s2
tail -2 $o/test-decode.txt
for f in $o/decode*.txt; do echo "== $f"; cut -d, -f3,11,19,21 $f | tail -7; done
