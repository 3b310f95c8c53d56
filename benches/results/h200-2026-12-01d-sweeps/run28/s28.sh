set -uo pipefail
# Sweep 28: the subgroup kernel's scattered scores (one a lane where 4+ lanes share a key: SCAT=1,
# the default) against every lane keeping all 4 (decode_scat=0); alternating, 3 rounds; check,
# decode and numerics tests; SASS cache of both.
t=/tmp/s28; mkdir -p $t
r="bash .device/on-device.sh"
q="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536,131072 --fused-only"
for v in 1 0; do
  mkdir -p $t/cache$v
  WGPU_SDPA_TUNE=decode_scat=$v __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1 __GL_SHADER_DISK_CACHE_PATH=$t/cache$v $r .device/sdpa bench --dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 16384 --fused-only > /dev/null 2>&1
done
timeout 240 $r .device/sdpa check > $t/check.txt 2>&1
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode > $t/test-decode.txt 2>&1; echo "exit $?" >> $t/test-decode.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/numerics > $t/test-numerics.txt 2>&1; echo "exit $?" >> $t/test-numerics.txt
for i in 1 2 3; do
  WGPU_SDPA_TUNE=decode_scat=1 $r .device/sdpa bench $q > $t/scat-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_scat=0 $r .device/sdpa bench $q > $t/old-$i.txt 2>&1
done
for sh in "32,8 --len 2 --hdim 128" "32,32 --len 1 --hdim 128" "16,2 --len 1 --hdim 128" "32,8 --len 1 --hdim 64" "32,8 --len 1 --hdim 256"; do
  n=$(echo $sh | tr -d ' ,-')
  for v in 1 0; do
    WGPU_SDPA_TUNE=decode_scat=$v $r .device/sdpa bench --dtype f16 --heads $sh --kv-len 16384,131072 --fused-only > $t/$n-scat$v.txt 2>&1
  done
done
for v in 1 0; do
  WGPU_SDPA_TUNE=decode_scat=$v $r .device/sdpa bench --dtype f32 --hdim 128 --heads 32,8 --len 1 --kv-len 16384,131072 --fused-only > $t/f32-scat$v.txt 2>&1
done
tar -C /tmp -czf $OUT/s28.tgz s28
cd $t; tail -1 check.txt; grep -E "test result|exit" test-*.txt; for f in *.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
