set -uo pipefail
# Run 34: the team sum of P taken once (the review, after 0e35aff) against 0e35aff (.device/sdpa-old);
# check, decode tests.
t=/tmp/s34; mkdir -p $t
r="bash .device/on-device.sh"
timeout 240 $r .device/sdpa check > $t/check.txt 2>&1
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode > $t/test-decode.txt 2>&1; echo "exit $?" >> $t/test-decode.txt
for i in 1 2; do
  for b in sdpa sdpa-old; do
    $r .device/$b bench --dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,131072 --fused-only > $t/$b-d128-$i.txt 2>&1
    $r .device/$b bench --dtype f16 --hdim 256 --heads 32,8 --len 1 --kv-len 4096,16384,131072 --fused-only > $t/$b-d256-$i.txt 2>&1
    $r .device/$b bench --dtype f16 --hdim 128 --heads 32,32 --len 1 --kv-len 16384,131072 --fused-only > $t/$b-mha-$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s34.tgz s34
cd $t; tail -1 check.txt; grep -E "test result|exit" test-*.txt; for f in sdpa*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
