set -uo pipefail
# Sweep 23: splits of whole team blocks (8 keys) rather than whole workgroup strides (64)
# (decode_grain=1: 33 splits of 504 keys at 16384, every slot of two workgroups an SM taken,
# against 32 of 512); and 8 query vectors a KV head two ways (32/4 heads one row, 32/8 two rows)
# on the planner's kernel and the f32-math one (decode_sg=0), for the planner's rule.
t=/tmp/s23; mkdir -p $t
r="bash .device/on-device.sh"
q="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 8192,16384,32768,65536,131072 --fused-only"
WGPU_SDPA_TUNE=decode_grain=1 $r .device/sdpa check --filter vector > $t/check-grain.txt 2>&1
for i in 1 2 3; do
  WGPU_SDPA_TUNE=decode_grain=1 $r .device/sdpa bench $q > $t/grain-$i.txt 2>&1
  $r .device/sdpa bench $q > $t/base-$i.txt 2>&1
done
for d in 64 256; do
  WGPU_SDPA_TUNE=decode_grain=1 $r .device/sdpa bench --dtype f16 --hdim $d --heads 32,8 --len 1 --kv-len 16384,131072 --fused-only > $t/grain-d$d.txt 2>&1
  $r .device/sdpa bench --dtype f16 --hdim $d --heads 32,8 --len 1 --kv-len 16384,131072 --fused-only > $t/base-d$d.txt 2>&1
done
for sh in "32,4 --len 1" "32,8 --len 2"; do
  n=$(echo $sh | tr -d ' ,-' )
  for i in 1 2; do
    $r .device/sdpa bench --dtype f16 --hdim 128 --heads $sh --kv-len 16384,65536,131072 --fused-only > $t/q8-$n-sg-$i.txt 2>&1
    WGPU_SDPA_TUNE=decode_sg=0 $r .device/sdpa bench --dtype f16 --hdim 128 --heads $sh --kv-len 16384,65536,131072 --fused-only > $t/q8-$n-sg0-$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s23.tgz s23
cd $t; grep -h "passed" check-grain.txt
for f in grain-[123].txt base-[123].txt *-d*.txt q8-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
