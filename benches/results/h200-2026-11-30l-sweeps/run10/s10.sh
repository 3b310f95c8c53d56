set -uo pipefail
# Sweep 10: the cooperative-matrix decode kernel within 31 KB of workgroup memory (d128: 32-key
# tiles, 2 keys a softmax thread, Q in 4 parts; 28 KB): check, tests, against the f32 vector
# kernel (decode_coop=0), ablations, 4 keys a thread (46 KB), 528 workgroups; d64; SASS.
t=/tmp/s10; mkdir -p $t
r="bash .device/on-device.sh"
$r .device/sdpa check --filter vector > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode --test-threads=1 > $t/decode-tests.txt 2>&1; echo "exit $?" >> $t/decode-tests.txt
bash .device/sass.sh capture $t/cache --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > /dev/null 2>&1
d="--decode --len 256,4096,16384,32768,131072"
d64="--dtype f16 --hdim 64 --heads 32,8 --len 1 --kv-len 4096,16384,65536 --fused-only"
for i in 1 2; do
  for k in none decode_coop=0 decode_ablate=32 decode_ablate=4 decode_kpt=4 decode_wgs=528; do
    WGPU_SDPA_TUNE=$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1
  done
  for k in none decode_coop=0; do WGPU_SDPA_TUNE=$k $r .device/sdpa bench $d64 > $t/d64-$k-$i.txt 2>&1; done
done
tar -C /tmp -czf $OUT/s10.tgz s10
tail -2 $t/check.txt; grep -E "test result" $t/decode-tests.txt; tail -1 $t/decode-tests.txt
grep -i -E "regist|plan" $t/cache/pipeline_stats.txt | head -2
cd $t; for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $18, $11}')"; done
