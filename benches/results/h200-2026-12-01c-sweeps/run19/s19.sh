set -uo pipefail
# Sweep 19: which of sweep 18's trims cost at d128: A all (and the sum of P's rescale left out of
# the loop), B A with P's sum back in the P V lanes, C A without pre-scaled queries, D A with
# the in-block selects; old = the tree before. Alternating, 3 rounds; SASS of each.
t=/tmp/s19; mkdir -p $t
r="bash .device/on-device.sh"
q="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 16384,65536,131072 --fused-only"
for v in A B C D old; do
  mkdir -p $t/cache-$v
  __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1 __GL_SHADER_DISK_CACHE_PATH=$t/cache-$v $r .device/sdpa-$v bench --dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 16384 --fused-only > /dev/null 2>&1
done
for i in 1 2 3; do
  for v in A B C D old; do
    $r .device/sdpa-$v bench $q > $t/$v-$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s19.tgz s19
cd $t; for f in [A-D]-[123].txt old-[123].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
