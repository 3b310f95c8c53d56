set -uo pipefail
# Sweep 20: C (sweep 19's best: the trims without pre-scaled queries), E (C with each team's
# first block loaded while the queries are staged, taken out of the loop), ER (E with the
# reduce pass a thread a column pair, no workgroup memory or barrier), old; alternating,
# 3 rounds; SASS of E and ER; check and decode rows of ER.
t=/tmp/s20; mkdir -p $t
r="bash .device/on-device.sh"
q="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536,131072 --fused-only"
for v in E ER; do
  mkdir -p $t/cache-$v
  __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1 __GL_SHADER_DISK_CACHE_PATH=$t/cache-$v $r .device/sdpa-$v bench --dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 16384 --fused-only > /dev/null 2>&1
done
$r .device/sdpa-ER check > $t/check-ER.txt 2>&1
for i in 1 2 3; do
  for v in C E ER old; do
    $r .device/sdpa-$v bench $q > $t/$v-$i.txt 2>&1
  done
done
for d in 64 256; do
  for v in C ER old; do
    $r .device/sdpa-$v bench --dtype f16 --hdim $d --heads 32,8 --len 1 --kv-len 16384,131072 --fused-only > $t/$v-d$d.txt 2>&1
  done
done
for v in ER old; do
  $r .device/sdpa-$v bench --dtype f32 --hdim 128 --heads 32,8 --len 1 --kv-len 16384,131072 --fused-only > $t/$v-f32.txt 2>&1
  $r .device/sdpa-$v bench --dtype f16 --hdim 128 --heads 32,8 --len 4 --kv-len 16384,131072 --fused-only > $t/$v-q4.txt 2>&1
done
tar -C /tmp -czf $OUT/s20.tgz s20
cd $t; grep -h "passed" check-ER.txt
for f in [CE]*-[123].txt old-[123].txt *-d*.txt *-f32.txt *-q4.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
