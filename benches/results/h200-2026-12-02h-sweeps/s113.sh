set -uo pipefail
# Run 113 (twenty-seventh session): the final tree (22e3e99; kernels as e938327): sdpa check and
# the decode and numerics tests; 8 runs of the d128 decode rows; the decode sweep beside
# PyTorch (the issue's protocol); the read-only yardstick.
o=/tmp/s113; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,32768,131072 --fused-only"
for i in 1 2 3 4 5 6 7 8; do timeout 60 $r .device/sdpa bench $d128 > $o/head-$i.txt 2>&1; done
lens="256,1024,2048,4096,8192,16384,32768,65536,131072"
$r .device/sdpa bench --decode --len $lens --json $o/decode.json > $o/decode.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens ${lens//,/ } > $o/torch-decode.txt 2>&1
timeout 60 $r .device/read_bandwidth 16384 131072 > $o/read_bandwidth.txt 2>&1
echo "benches at $SECONDS s"
timeout 150 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
for t in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 100 $r .device/t/$t --test-threads=1 --nocapture > $o/test-$t.txt 2>&1; echo "exit $?" >> $o/test-$t.txt
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s113.tgz s113
cd $o
echo "check: $(tail -2 check.txt | tr '\n' ' ')"
for t in decode numerics; do echo "$t: $(grep 'test result' test-$t.txt) $(tail -1 test-$t.txt)"; done
grep -E "cases on the subgroup|SKIPPED" test-decode.txt
grep -E '^ *[0-9]+, ' decode.txt | awk -F, '{printf "%s:%s/%s/%s ", $3, $10, $11, $18}'; echo
tail -9 torch-decode.txt | awk -F, '{printf "%s:%s ", $3, $11}'; echo
cat read_bandwidth.txt
for i in 1 2 3 4 5 6 7 8; do echo "head-$i: $(grep -E '^ *[0-9]+, ' head-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done
