set -uo pipefail
# Sweep 6: the subgroup decode kernel on cooperative matrices (wgsl/vector_subgroup_coop.wgsl,
# decode_tc=1) against the subgroup kernel (the planner's) and the committed tree; correctness
# with the knob; its SASS and registers.
t=/tmp/s6; mkdir -p $t
r="bash .device/on-device.sh"
WGPU_SDPA_TUNE=decode_tc=1 timeout 200 $r .device/sdpa check --filter vector > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
WGPU_SDPA_TUNE=decode_tc=1 WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode --test-threads=1 > $t/test-decode.txt 2>&1; echo "exit $?" >> $t/test-decode.txt
WGPU_SDPA_TUNE=decode_tc=1 bash scripts/sass.sh capture $t/cache --heads 32,8 --kv-len 16384 --q-len 1 --hdim 128 --dtype f16 > $t/capture.txt 2>&1
d="--decode --len 1024,4096,16384,32768,131072 --fused-only"
for i in 1 2; do
  WGPU_SDPA_TUNE=decode_tc=1 $r .device/sdpa bench $d > $t/tc-$i.txt 2>&1
  $r .device/sdpa bench $d > $t/sg-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_tc=1,decode_ablate=1 $r .device/sdpa bench $d > $t/tc-noreduce-$i.txt 2>&1
done
$r .device/sdpa-old bench $d > $t/old-1.txt 2>&1
tar -C /tmp -czf $OUT/s6.tgz s6
tail -3 $t/check.txt; grep "test result\|exit\|panicked" $t/test-decode.txt | head; grep -A3 "failed:" $t/test-decode.txt | head -20
grep -h "CS: Register" $t/cache/pipeline_stats.txt
cd $t; for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
