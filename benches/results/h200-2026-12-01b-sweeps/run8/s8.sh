set -uo pipefail
# Sweep 8: wgsl/vector_subgroup_coop.wgsl with K and V blocks in their own buffers, both staged at
# a block's start and the next both fetched at once (decode_tc_sep=1), 2 teams (4 do not fit
# 31 KB) and 1; correctness with it.
t=/tmp/s8; mkdir -p $t
r="bash .device/on-device.sh"
k1="decode_tc=1,decode_tc_sep=1,decode_tc_teams=2"
WGPU_SDPA_TUNE=$k1 timeout 200 $r .device/sdpa check --filter vector > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
WGPU_SDPA_TUNE=$k1 WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode --test-threads=1 > $t/test-decode.txt 2>&1; echo "exit $?" >> $t/test-decode.txt
for k in $k1 decode_tc=1,decode_tc_sep=1,decode_tc_teams=1; do WGPU_SDPA_TUNE=$k $r .device/pipeline_stats --heads 32,8 --kv-len 16384 --q-len 1 --hdim 128 --dtype f16; done > $t/regs.txt 2>&1
d="--decode --len 1024,4096,16384,32768,131072 --fused-only"
for i in 1 2; do
  WGPU_SDPA_TUNE=$k1 $r .device/sdpa bench $d > $t/sep2-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_tc=1,decode_tc_sep=1,decode_tc_teams=1 $r .device/sdpa bench $d > $t/sep1-$i.txt 2>&1
  $r .device/sdpa bench $d > $t/sg-$i.txt 2>&1
done
WGPU_SDPA_TUNE=$k1,decode_ablate=1 $r .device/sdpa bench $d > $t/sep2-noreduce-1.txt 2>&1
tar -C /tmp -czf $OUT/s8.tgz s8
tail -2 $t/check.txt; grep "test result\|exit" $t/test-decode.txt | head
grep -h "CS: Register" $t/regs.txt
cd $t; for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
