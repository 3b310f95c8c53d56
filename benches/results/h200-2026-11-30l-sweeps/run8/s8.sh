set -uo pipefail
# Sweep 8: the cooperative-matrix decode kernel with one subgroup per O fragment, 64-key tiles
# at d128, K and V single-buffered and stored in separate steps (three barriers a tile): check,
# tests, against the f32 vector kernel (decode_coop=0), ablations, 528 workgroups, SASS.
t=/tmp/s8; mkdir -p $t
r="bash .device/on-device.sh"
$r .device/sdpa check --filter vector > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode --test-threads=1 > $t/decode-tests.txt 2>&1; echo "exit $?" >> $t/decode-tests.txt
bash .device/sass.sh capture $t/cache --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > /dev/null 2>&1
d="--decode --len 256,4096,16384,32768,131072"
ks="none decode_coop=0 decode_ablate=32 decode_ablate=4 decode_wgs=528"
for i in 1 2; do
  for k in $ks; do WGPU_SDPA_TUNE=$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1; done
done
tar -C /tmp -czf $OUT/s8.tgz s8
tail -2 $t/check.txt; grep -E "test result" $t/decode-tests.txt; tail -1 $t/decode-tests.txt
grep -i -E "regist|plan" $t/cache/pipeline_stats.txt | head -3
cd $t; for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $18, $19}')"; done
