set -uo pipefail
# Run 67: the arrival counter's reset moved past the fences (sdpa) against the commit before
# (sdpa-prev, 929d653): d128 A/B, other shapes, checks, and the new kernel's SASS.
o=/tmp/s67; mkdir -p $o
r="bash .device/on-device.sh"
timeout 200 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
for n in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r .device/t/$n --test-threads=1 > $o/test-$n.txt 2>&1; echo "exit $?" >> $o/test-$n.txt
done
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,8192,16384,65536,131072 --fused-only"
for i in 1 2 3; do
  $r .device/sdpa-prev bench $d128 > $o/prev-d128-$i.txt 2>&1
  $r .device/sdpa bench $d128 > $o/sdpa-d128-$i.txt 2>&1
done
for i in 1 2; do
  WGPU_SDPA_TUNE=decode_merge_ablate=4 $r .device/sdpa bench $d128 > $o/sdpa-a4-$i.txt 2>&1
done
k="--len 1 --kv-len 4096,16384,65536 --fused-only"
for b in prev sdpa; do
  bin=.device/sdpa; [ $b = prev ] && bin=.device/sdpa-prev
  $r $bin bench --dtype f16 --hdim 64 --heads 32,8 $k > $o/$b-d64.txt 2>&1
  $r $bin bench --dtype f16 --hdim 256 --heads 32,8 $k > $o/$b-d256.txt 2>&1
  $r $bin bench --dtype f32 --hdim 128 --heads 32,8 $k > $o/$b-f32.txt 2>&1
  $r $bin bench --dtype f16 --hdim 128 --heads 32,8 --len 2 --kv-len 4096,16384,65536 --fused-only > $o/$b-q2.txt 2>&1
done
bash scripts/sass.sh capture $o/c-sdpa --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > /dev/null 2>&1
tar -C /tmp -czf $OUT/s67.tgz s67
cd $o; tail -1 check.txt; for n in decode numerics; do echo "$n: $(grep 'test result' test-$n.txt) $(tail -1 test-$n.txt)"; done
for f in prev-d128*.txt sdpa-d128*.txt sdpa-a4*.txt prev-d*.txt sdpa-d64.txt sdpa-d256.txt prev-f32.txt sdpa-f32.txt prev-q2.txt sdpa-q2.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s ", $3, $18}')"; done
