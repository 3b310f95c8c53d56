set -uo pipefail
# Sweep 27: the reduce pass on subgroups (wgsl/vector_reduce_subgroup.wgsl, default) against the
# workgroup-memory pass (reduce_sg=0); alternating, 3 rounds; plus no reduce pass (decode_ablate=1)
# and a pass that returns at once (2) for the floor; check, decode tests.
t=/tmp/s27; mkdir -p $t
r="bash .device/on-device.sh"
q="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536,131072 --fused-only"
timeout 240 $r .device/sdpa check > $t/check.txt 2>&1
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode > $t/test-decode.txt 2>&1; echo "exit $?" >> $t/test-decode.txt
for i in 1 2 3; do
  $r .device/sdpa bench $q > $t/sg-$i.txt 2>&1
  WGPU_SDPA_TUNE=reduce_sg=0 $r .device/sdpa bench $q > $t/wg-$i.txt 2>&1
done
WGPU_SDPA_TUNE=decode_ablate=1 $r .device/sdpa bench $q > $t/ablate1.txt 2>&1
WGPU_SDPA_TUNE=decode_ablate=2 $r .device/sdpa bench $q > $t/ablate2.txt 2>&1
WGPU_SDPA_TUNE=decode_ablate=2,reduce_sg=0 $r .device/sdpa bench $q > $t/ablate2wg.txt 2>&1
for sh in "32,8 --len 2 --hdim 128" "32,32 --len 1 --hdim 128" "16,2 --len 1 --hdim 128" "32,8 --len 1 --hdim 64" "32,8 --len 1 --hdim 256"; do
  n=$(echo $sh | tr -d ' ,-')
  $r .device/sdpa bench --dtype f16 --heads $sh --kv-len 16384,131072 --fused-only > $t/$n-sg.txt 2>&1
  WGPU_SDPA_TUNE=reduce_sg=0 $r .device/sdpa bench --dtype f16 --heads $sh --kv-len 16384,131072 --fused-only > $t/$n-wg.txt 2>&1
done
tar -C /tmp -czf $OUT/s27.tgz s27
cd $t; tail -1 check.txt; grep -E "test result|exit" test-decode.txt; for f in *.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
