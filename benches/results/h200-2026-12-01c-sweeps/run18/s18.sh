set -uo pipefail
# Sweep 18: trims of the subgroup kernel's loop (queries staged pre-scaled, P's sum added by the
# score lanes, P shuffles and V checks without selects where every key lies in the block),
# against the tree before (sdpa-old), alternating; SASS of both.
t=/tmp/s18; mkdir -p $t
r="bash .device/on-device.sh"
q="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536,131072 --fused-only"
a="--heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16"
export __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1
mkdir -p $t/cache-new $t/cache-old
__GL_SHADER_DISK_CACHE_PATH=$t/cache-new $r .device/pipeline_stats $a > $t/ps-new.txt 2>&1
__GL_SHADER_DISK_CACHE_PATH=$t/cache-old $r .device/ps-old $a > $t/ps-old.txt 2>&1
unset __GL_SHADER_DISK_CACHE __GL_SHADER_DISK_CACHE_SKIP_CLEANUP
$r .device/sdpa check --filter vector > $t/check.txt 2>&1
for i in 1 2 3; do
  $r .device/sdpa bench $q > $t/new-$i.txt 2>&1
  $r .device/sdpa-old bench $q > $t/old-$i.txt 2>&1
done
for d in 64 256; do
  $r .device/sdpa bench --dtype f16 --hdim $d --heads 32,8 --len 1 --kv-len 16384,131072 --fused-only > $t/new-d$d.txt 2>&1
  $r .device/sdpa-old bench --dtype f16 --hdim $d --heads 32,8 --len 1 --kv-len 16384,131072 --fused-only > $t/old-d$d.txt 2>&1
done
tar -C /tmp -czf $OUT/s18.tgz s18
cd $t; grep -h "Register Count" ps-new.txt ps-old.txt | grep CS
grep -h "passed" check.txt
for f in new-[123].txt old-[123].txt new-d*.txt old-d*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
