set -uo pipefail
# Run 104: the final tree (c7a89bd): sdpa check, the decode and numerics tests, and 12 calls of
# the d128 rows (32/8 heads) and 4 of d64's on another start of the machine.
o=/tmp/s104; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
  timeout 60 $r .device/sdpa bench --dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 256,1024,4096,8192,16384,32768,131072 --fused-only > $o/d128-$i.txt 2>&1
done
for i in 1 2 3 4; do
  timeout 60 $r .device/sdpa bench --dtype f16 --hdim 64 --heads 32,8 --len 1 --kv-len 256,1024,4096,16384 --fused-only > $o/d64-$i.txt 2>&1
done
echo "benches at $SECONDS s"
tar -C /tmp -czf $OUT/s104.tgz s104
timeout 150 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
for t in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 100 $r .device/t/$t --test-threads=1 --nocapture > $o/test-$t.txt 2>&1; echo "exit $?" >> $o/test-$t.txt
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s104.tgz s104
cd $o
echo "check: $(tail -2 check.txt | tr '\n' ' ')"
for t in decode numerics; do echo "$t: $(grep 'test result' test-$t.txt) $(tail -1 test-$t.txt)"; done
grep -E "cases on the subgroup|SKIPPED" test-decode.txt
grep -E '^ *[0-9]+, ' d128-1.txt | awk -F, '{print $3, $NF}'
grep -E '^ *[0-9]+, ' d64-1.txt | awk -F, '{print $3, $NF}'
for s in d128 d64; do for f in $s-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done
