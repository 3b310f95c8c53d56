set -uo pipefail
# Sweep 7: wgsl/vector_subgroup_coop.wgsl with O's fragments in variables (an array of them went
# to local memory in sweep 6), 4 teams (decode_tc=1) and 2 (decode_tc_teams=2); correctness; SASS.
t=/tmp/s7; mkdir -p $t
r="bash .device/on-device.sh"
WGPU_SDPA_TUNE=decode_tc=1 timeout 200 $r .device/sdpa check --filter vector > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
WGPU_SDPA_TUNE=decode_tc=1 WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode --test-threads=1 > $t/test-decode.txt 2>&1; echo "exit $?" >> $t/test-decode.txt
WGPU_SDPA_TUNE=decode_tc=1 bash scripts/sass.sh capture $t/cache --heads 32,8 --kv-len 16384 --q-len 1 --hdim 128 --dtype f16 > $t/capture.txt 2>&1
WGPU_SDPA_TUNE=decode_tc=1,decode_tc_teams=2 $r .device/pipeline_stats --heads 32,8 --kv-len 16384 --q-len 1 --hdim 128 --dtype f16 > $t/regs2.txt 2>&1
d="--decode --len 1024,4096,16384,32768,131072 --fused-only"
for i in 1 2; do
  WGPU_SDPA_TUNE=decode_tc=1 $r .device/sdpa bench $d > $t/tc-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_tc=1,decode_tc_teams=2 $r .device/sdpa bench $d > $t/tc2-$i.txt 2>&1
  $r .device/sdpa bench $d > $t/sg-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_tc=1,decode_ablate=1 $r .device/sdpa bench $d > $t/tc-noreduce-$i.txt 2>&1
done
tar -C /tmp -czf $OUT/s7.tgz s7
tail -2 $t/check.txt; grep "test result\|exit" $t/test-decode.txt | head
grep -h "CS: Register" $t/cache/pipeline_stats.txt $t/regs2.txt
cd $t; for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
