set -uo pipefail
# Run 77: the tree committed (the kernels' default code as a45d81b's; the profiling bits
# 1024/2048 added): checks, and d128 beside sdpa-prev (a45d81b).
o=/tmp/s77; mkdir -p $o
r="bash .device/on-device.sh"
timeout 200 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
for n in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r .device/t/$n --test-threads=1 > $o/test-$n.txt 2>&1; echo "exit $?" >> $o/test-$n.txt
done
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,131072 --fused-only"
for i in 1 2 3; do
  $r .device/sdpa-prev bench $d128 > $o/prev-d128-$i.txt 2>&1
  $r .device/sdpa bench $d128 > $o/sdpa-d128-$i.txt 2>&1
done
tar -C /tmp -czf $OUT/s77.tgz s77
cd $o; tail -1 check.txt; for n in decode numerics; do echo "$n: $(grep 'test result' test-$n.txt) $(tail -1 test-$n.txt)"; done
for f in prev-d128*.txt sdpa-d128*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
