set -uo pipefail
# Sweep 10: run 9's kernel plus word indices whose constant steps fold into the loads' offsets
# (`load_chunk_n`) and the sum of P kept once a key (`lk`, summed over the team at the end)
# instead of over each lane's P V keys; against the committed tree (6c3da5a); correctness; SASS.
t=/tmp/s10; mkdir -p $t
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
tar -C /tmp -czf $OUT/s10.tgz s10
tail -2 $t/check.txt; for n in decode numerics; do grep "test result\|exit" $t/test-$n.txt | head -3; done
grep -h "CS: Register" $t/cache/pipeline_stats.txt
cd $t; for f in *-[123].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
