set -uo pipefail
# Sweep 26: the reduce pass reading the partial results as vec4s (a column quad one load, a
# (max, sum) pair half of one: 8 loads a thread where 24 came in three batches) against ddf55cd
# (sdpa-base); alternating, 3 rounds; check, decode tests, SASS of the reduce pass.
t=/tmp/s26; mkdir -p $t
r="bash .device/on-device.sh"
q="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536,131072 --fused-only"
mkdir -p $t/cache
__GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1 __GL_SHADER_DISK_CACHE_PATH=$t/cache $r .device/sdpa bench --dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 16384 --fused-only > /dev/null 2>&1
timeout 240 $r .device/sdpa check > $t/check.txt 2>&1
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode > $t/test-decode.txt 2>&1; echo "exit $?" >> $t/test-decode.txt
for i in 1 2 3; do
  $r .device/sdpa bench $q > $t/v4-$i.txt 2>&1
  $r .device/sdpa-base bench $q > $t/base-$i.txt 2>&1
done
for sh in "32,8 --len 2" "32,32 --len 1" "16,2 --len 1"; do
  n=$(echo $sh | tr -d ' ,-')
  $r .device/sdpa bench --dtype f16 --hdim 128 --heads $sh --kv-len 16384,131072 --fused-only > $t/$n-v4.txt 2>&1
  $r .device/sdpa-base bench --dtype f16 --hdim 128 --heads $sh --kv-len 16384,131072 --fused-only > $t/$n-base.txt 2>&1
done
tar -C /tmp -czf $OUT/s26.tgz s26
cd $t; tail -1 check.txt; grep -E "test result|exit" test-decode.txt; for f in *.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
