set -uo pipefail
# Run 72: the in-pass merge taking the workgroup's own split from registers (sdpa: the rounds
# skip it and stop before the last split, which lane 0 merges apart: 4 rounds instead of 5 at
# 33 splits) against 804461f (sdpa-prev): checks, d128 A/B, other shapes, registers.
o=/tmp/s72; mkdir -p $o
r="bash .device/on-device.sh"
timeout 200 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
for n in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r .device/t/$n --test-threads=1 > $o/test-$n.txt 2>&1; echo "exit $?" >> $o/test-$n.txt
done
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,8192,16384,65536,131072 --fused-only"
for i in 1 2 3 4; do
  $r .device/sdpa-prev bench $d128 > $o/prev-d128-$i.txt 2>&1
  $r .device/sdpa bench $d128 > $o/sdpa-d128-$i.txt 2>&1
done
k="--len 1 --kv-len 4096,16384,65536 --fused-only"
for i in 1 2; do
  for b in prev sdpa; do
    bin=.device/sdpa; [ $b = prev ] && bin=.device/sdpa-prev
    $r $bin bench --dtype f16 --hdim 64 --heads 32,8 $k > $o/$b-d64-$i.txt 2>&1
    $r $bin bench --dtype f16 --hdim 256 --heads 32,8 $k > $o/$b-d256-$i.txt 2>&1
    $r $bin bench --dtype f32 --hdim 128 --heads 32,8 $k > $o/$b-f32-$i.txt 2>&1
    $r $bin bench --dtype f16 --hdim 128 --heads 32,32 $k > $o/$b-mha-$i.txt 2>&1
    $r $bin bench --dtype f16 --hdim 128 --heads 32,8 --len 2 --kv-len 4096,16384,65536 --fused-only > $o/$b-q2-$i.txt 2>&1
  done
done
$r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > $o/stats-d128.txt 2>&1
$r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 64 --dtype f16 > $o/stats-d64.txt 2>&1
tar -C /tmp -czf $OUT/s72.tgz s72
cd $o; tail -1 check.txt; for n in decode numerics; do echo "$n: $(grep 'test result' test-$n.txt) $(tail -1 test-$n.txt)"; done
grep -h "CS: Register" stats-*.txt | cut -c1-60
for f in prev-d128*.txt sdpa-d128*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s ", $3, $18}')"; done
for s in d64 d256 f32 mha q2; do for b in prev sdpa; do for i in 1 2; do f=$b-$s-$i.txt; echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done; done
