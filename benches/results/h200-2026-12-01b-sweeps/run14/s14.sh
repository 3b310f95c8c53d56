set -uo pipefail
# Sweep 14: 2 query rows of 32/8 heads (8 query vectors a KV head): the planner's kernel (the
# subgroup kernel past 4096 keys) against the f32-math kernel (decode_sg=0), both with its FMA chains.
t=/tmp/s14; mkdir -p $t
r="bash .device/on-device.sh"
q="--dtype f16 --hdim 128 --heads 32,8 --len 2 --kv-len 8192,16384,32768,65536,131072 --fused-only"
for i in 1 2; do
  $r .device/sdpa bench $q > $t/sg-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_sg=0 $r .device/sdpa bench $q > $t/sg0-$i.txt 2>&1
done
tar -C /tmp -czf $OUT/s14.tgz s14
cd $t; for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s/%s:%s/%s ", $2, $3, $11, $18}')"; done
grep -E "^ *1, " $t/sg-1.txt | awk -F, '{print $3, $NF}' | cut -c1-100
