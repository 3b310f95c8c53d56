set -uo pipefail
o=/tmp/s1; mkdir -p $o
run="bash .device/on-device.sh .device/sdpa"
lens=256,1024,4096,16384,32768,65536,131072
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; $run info; } > $o/info.txt 2>&1
$run bench --decode --len $lens --json $o/decode.json > $o/decode.txt 2>&1
WGPU_SDPA_TUNE=decode_merged=0 $run bench --decode --len $lens --json $o/decode-reduce.json > $o/decode-reduce.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens 256 1024 4096 16384 32768 65536 131072 > $o/torch-decode.txt 2>&1
for w in 132 396 528; do WGPU_SDPA_TUNE=decode_wgs=$w $run bench --decode --len 4096,16384,32768,131072 > $o/decode-wgs$w.txt 2>&1; done
WGPU_SDPA_REQUIRE_ADAPTER=1 bash .device/on-device.sh .device/t/decode --test-threads=1 > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
$run check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
tar -C /tmp -czf $OUT/s1.tgz s1
tail -5 $o/check.txt; tail -3 $o/test-decode.txt; cat $o/decode.txt $o/decode-reduce.txt
