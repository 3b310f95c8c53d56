set -uo pipefail
# Sweep 13: the f32-math decode kernel (wgsl/vector.wgsl; decode_sg=0 takes it for q_len 1 past
# 4096 keys) with its scores as one chain of FMAs a query vector (`dot_chunks`) against the
# committed tree (3f154c2, .device/sdpa-old) with the same knob; correctness with the knob.
t=/tmp/s13; mkdir -p $t
r="bash .device/on-device.sh"
WGPU_SDPA_TUNE=decode_sg=0 timeout 200 $r .device/sdpa check --filter vector > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
for n in decode numerics; do WGPU_SDPA_TUNE=decode_sg=0 WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/$n --test-threads=1 > $t/test-$n.txt 2>&1; echo "exit $?" >> $t/test-$n.txt; done
d="--decode --len 8192,16384,32768,131072 --fused-only"
q="--dtype f16 --hdim 128 --heads 32,8 --len 2 --kv-len 16384,65536 --fused-only"
for i in 1 2; do
  WGPU_SDPA_TUNE=decode_sg=0 $r .device/sdpa bench $d > $t/new-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_sg=0 $r .device/sdpa-old bench $d > $t/old-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_sg=0 $r .device/sdpa bench $q > $t/new-q2-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_sg=0 $r .device/sdpa-old bench $q > $t/old-q2-$i.txt 2>&1
done
tar -C /tmp -czf $OUT/s13.tgz s13
tail -2 $t/check.txt; for n in decode numerics; do grep "test result\|exit" $t/test-$n.txt | head -3; done
cd $t; for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s/%s:%s/%s ", $2, $3, $11, $18}')"; done
grep -h "fused plan\|^ *1, " $t/new-1.txt | head -2 | cut -c1-60; grep -E "^ *1, " $t/new-1.txt | head -1 | awk -F, '{print $NF}' | cut -c1-120
