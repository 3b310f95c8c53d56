set -uo pipefail
# Sweep 9: the subgroup decode kernel's scores as chains of FMAs (dot() took a multiply and an add
# more) and K loads never skipped (keys past the end read the last key, their scores excluded),
# against the committed tree (6c3da5a, .device/sdpa-old); correctness.
t=/tmp/s9; mkdir -p $t
r="bash .device/on-device.sh"
timeout 200 $r .device/sdpa check --filter vector > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
for n in decode numerics; do WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/$n --test-threads=1 > $t/test-$n.txt 2>&1; echo "exit $?" >> $t/test-$n.txt; done
bash scripts/sass.sh capture $t/cache --heads 32,8 --kv-len 16384 --q-len 1 --hdim 128 --dtype f16 > $t/capture.txt 2>&1
d="--decode --len 1024,4096,16384,32768,131072 --fused-only"
for i in 1 2 3; do
  $r .device/sdpa bench $d > $t/new-$i.txt 2>&1
  $r .device/sdpa-old bench $d > $t/old-$i.txt 2>&1
done
WGPU_SDPA_TUNE=decode_ablate=1 $r .device/sdpa bench $d > $t/noreduce-1.txt 2>&1
tar -C /tmp -czf $OUT/s9.tgz s9
tail -2 $t/check.txt; for n in decode numerics; do grep "test result\|exit" $t/test-$n.txt | head -3; done
grep -h "CS: Register" $t/cache/pipeline_stats.txt
cd $t; for f in *-[123].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
