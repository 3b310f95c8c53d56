set -uo pipefail
# Sweep 11: the subgroup decode kernel doing a block's P V at the next block's start (decode_vlag=1:
# its V chunks and P carried over, so that they need not arrive during their own block) against
# run 9's kernel (committed, 9cce2b3); correctness with it; SASS.
t=/tmp/s11; mkdir -p $t
r="bash .device/on-device.sh"
WGPU_SDPA_TUNE=decode_vlag=1 timeout 200 $r .device/sdpa check --filter vector > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
for n in decode numerics; do WGPU_SDPA_TUNE=decode_vlag=1 WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/$n --test-threads=1 > $t/test-$n.txt 2>&1; echo "exit $?" >> $t/test-$n.txt; done
WGPU_SDPA_TUNE=decode_vlag=1 bash scripts/sass.sh capture $t/cache --heads 32,8 --kv-len 16384 --q-len 1 --hdim 128 --dtype f16 > $t/capture.txt 2>&1
d="--decode --len 1024,4096,16384,32768,131072 --fused-only"
for i in 1 2 3; do
  WGPU_SDPA_TUNE=decode_vlag=1 $r .device/sdpa bench $d > $t/vlag-$i.txt 2>&1
  $r .device/sdpa bench $d > $t/base-$i.txt 2>&1
done
WGPU_SDPA_TUNE=decode_vlag=1,decode_ablate=1 $r .device/sdpa bench $d > $t/vlag-noreduce-1.txt 2>&1
tar -C /tmp -czf $OUT/s11.tgz s11
tail -2 $t/check.txt; for n in decode numerics; do grep "test result\|exit" $t/test-$n.txt | head -3; done
grep -h "CS: Register" $t/cache/pipeline_stats.txt
cd $t; for f in *-[123].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
