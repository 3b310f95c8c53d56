set -uo pipefail
# Sweep 5: the subgroup decode kernel with a column quad of V a lane over all the block's keys
# (state of 20 floats instead of 36) against the committed tree (6c3da5a, .device/sdpa-old);
# correctness; SASS; d64, d256 and f32 too.
t=/tmp/s5; mkdir -p $t
r="bash .device/on-device.sh"
timeout 200 $r .device/sdpa check --filter vector > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode --test-threads=1 > $t/test-decode.txt 2>&1; echo "exit $?" >> $t/test-decode.txt
bash scripts/sass.sh capture $t/cache --heads 32,8 --kv-len 16384 --q-len 1 --hdim 128 --dtype f16 > $t/capture.txt 2>&1
d="--decode --len 1024,4096,16384,32768,131072 --fused-only"
for i in 1 2; do
  $r .device/sdpa bench $d > $t/new-$i.txt 2>&1
  $r .device/sdpa-old bench $d > $t/old-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_ablate=1 $r .device/sdpa bench $d > $t/noreduce-$i.txt 2>&1
done
for s in "--dtype f16 --hdim 64" "--dtype f16 --hdim 256" "--dtype f32 --hdim 128"; do
  n=$(echo $s | tr -d ' -'); a="$s --heads 32,8 --len 1 --kv-len 4096,16384,65536 --fused-only"
  $r .device/sdpa bench $a > $t/new-$n.txt 2>&1; $r .device/sdpa-old bench $a > $t/old-$n.txt 2>&1
done
for dd in "--hdim 64 --dtype f16" "--hdim 256 --dtype f16" "--hdim 128 --dtype f32"; do $r .device/pipeline_stats --heads 32,8 --kv-len 16384 --q-len 1 $dd; done > $t/regs.txt 2>&1
tar -C /tmp -czf $OUT/s5.tgz s5
tail -2 $t/check.txt; grep "test result\|exit" $t/test-decode.txt
grep -h "CS: Register" $t/cache/pipeline_stats.txt $t/regs.txt
cd $t; for f in new*.txt old*.txt noreduce*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
