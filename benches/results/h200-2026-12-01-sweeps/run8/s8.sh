set -uo pipefail
# Sweep 8: the subgroup kernel's combine with the partial results as plain f32 and the counters bound apart.
t=/tmp/s8; mkdir -p $t
r="bash .device/on-device.sh"
{ echo "### base"; $r .device/pipeline_stats --heads 32,8 --q-len 1 --dtype f16 --kv-len 16384 --hdim 128 2>&1 | grep "CS: Register"; } > $t/registers.txt 2>&1
$r .device/sdpa check --filter vector > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode --test-threads=1 > $t/decode-tests.txt 2>&1
d="--decode --len 1024,4096,8192,16384,32768,131072 --fused-only"
for i in 1 2; do
  for k in base decode_last=0 decode_ablate=64; do
    WGPU_SDPA_TUNE=$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s8.tgz s8
cd $t; tail -n 2 check.txt; grep "test result" *-tests.txt; cat registers.txt
for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s:%s ", $3, $11, $18}')"; done
