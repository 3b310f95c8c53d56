set -uo pipefail
# Sweep 12: both decode kernels after sharing query_vector (wgsl/decode_query.wgsl) and the matrix
# kernel's f16 word store (wgsl/coop_word_f16.wgsl's put_word): registers, correctness, speed
# against the tree before (c037090, .device/sdpa-old).
t=/tmp/s12; mkdir -p $t
r="bash .device/on-device.sh"
$r .device/sdpa check --filter vector > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode --test-threads=1 > $t/decode-tests.txt 2>&1; echo "exit $?" >> $t/decode-tests.txt
{ for sh in "--kv-len 4096 --hdim 128" "--kv-len 4096 --hdim 64" "--kv-len 16384 --hdim 128"; do echo "### $sh"; $r .device/pipeline_stats --heads 32,8 --q-len 1 --dtype f16 $sh; done; } > $t/registers.txt 2>&1
d="--decode --len 1024,4096,16384,131072 --fused-only"
d64="--dtype f16 --hdim 64 --heads 32,8 --len 1 --kv-len 4096,16384 --fused-only"
for i in 1 2; do
  for b in sdpa sdpa-old; do $r .device/$b bench $d > $t/$b-$i.txt 2>&1; $r .device/$b bench $d64 > $t/$b-d64-$i.txt 2>&1; done
done
tar -C /tmp -czf $OUT/s12.tgz s12
cd $t; tail -2 check.txt; grep "test result" decode-tests.txt; grep "CS: Register" registers.txt
for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s ", $3, $18}')"; done
