set -uo pipefail
# Sweep 1 (fourteenth session): the subgroup decode kernel with the next block's K loads issued
# after the scores and its V loads after P V (decode_stagger=1), and the reduce pass merging a
# column quad's lanes by subgroup shuffles (reduce_sg=1); decode_ablate=1 drops the reduce pass.
t=/tmp/s1; mkdir -p $t
r="bash .device/on-device.sh"
k2="decode_stagger=1,reduce_sg=1"
WGPU_SDPA_TUNE=$k2 timeout 200 $r .device/sdpa check --filter vector > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
WGPU_SDPA_TUNE=$k2 WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode --test-threads=1 > $t/test-decode.txt 2>&1; echo "exit $?" >> $t/test-decode.txt
d="--decode --len 1024,4096,16384,32768,131072 --fused-only"
for i in 1 2; do
  for k in base decode_stagger=1 reduce_sg=1 $k2 decode_ablate=1 decode_stagger=1,decode_ablate=1; do
    WGPU_SDPA_TUNE=$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1
  done
done
for k in base decode_stagger=1; do
  WGPU_SDPA_TUNE=$k,reduce_sg=1 $r .device/pipeline_stats --heads 32,8 --kv-len 16384 --q-len 1 --hdim 128 --dtype f16 > $t/regs-$k.txt 2>&1
done
tar -C /tmp -czf $OUT/s1.tgz s1
tail -3 $t/check.txt; grep "test result\|exit" $t/test-decode.txt
grep -h "CS: Register\|^variant" $t/regs-*.txt
cd $t; for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
