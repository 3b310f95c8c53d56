set -uo pipefail
# Sweep 7: the subgroup decode kernel (now the planner's, with the last workgroup combining on Vulkan):
# 2 chunks a lane with the next block loaded a block ahead (decode_cpl=2,decode_sgpf=1), and where its tail goes (ablate 64 no combine, 128 no storage barriers).
t=/tmp/s7; mkdir -p $t
r="bash .device/on-device.sh"
for k in base decode_cpl=2 decode_cpl=2,decode_sgpf=1; do
  echo "### $k"; WGPU_SDPA_TUNE=$k $r .device/pipeline_stats --heads 32,8 --q-len 1 --dtype f16 --kv-len 16384 --hdim 128 2>&1 | grep "CS: Register"
done > $t/registers.txt 2>&1
$r .device/sdpa check > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
WGPU_SDPA_TUNE=decode_cpl=2,decode_sgpf=1 $r .device/sdpa check --filter vector > $t/check-cpl2pf1.txt 2>&1; echo "exit $?" >> $t/check-cpl2pf1.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode --test-threads=1 > $t/decode-tests.txt 2>&1
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/numerics --test-threads=1 > $t/numerics-tests.txt 2>&1
d="--decode --len 1024,4096,8192,16384,32768,131072 --fused-only"
for i in 1 2; do
  for k in base decode_sg=0,decode_coop=0 decode_last=0 decode_cpl=2 decode_cpl=2,decode_sgpf=1 decode_ablate=64 decode_ablate=128 decode_ablate=192 decode_last=0,decode_ablate=1; do
    WGPU_SDPA_TUNE=$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s7.tgz s7
cd $t; tail -1 check.txt check-cpl2pf1.txt; grep "test result" *-tests.txt; cat registers.txt
for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s:%s ", $3, $11, $18}')"; done
