set -uo pipefail
# Sweep 11: the subgroup kernel for more than 4 query vectors a KV head (decode_sgmany=1: workgroups of 4, K and V read once per 4), against the planner's kernels (f32-math or cooperative-matrix).
t=/tmp/s11; mkdir -p $t
r="bash .device/on-device.sh"
WGPU_SDPA_TUNE=decode_sgmany=1 $r .device/sdpa check --filter vector > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
q="--dtype f16 --hdim 128 --heads 32,8 --len 2,4,8 --kv-len 1024,4096,16384,65536 --fused-only"
for i in 1 2; do
  for k in base decode_sgmany=1; do WGPU_SDPA_TUNE=$k $r .device/sdpa bench $q > $t/q-$k-$i.txt 2>&1; done
  for k in base decode_sgmany=1; do WGPU_SDPA_TUNE=$k $r .device/sdpa bench --dtype f16 --hdim 128 --heads 32,4 --len 1 --kv-len 4096,16384,65536 --fused-only > $t/g8-$k-$i.txt 2>&1; done
done
tar -C /tmp -czf $OUT/s11.tgz s11
cd $t; tail -n 2 check.txt
for f in q-*.txt g8-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s/%s:%s/%s ", $2, $3, $11, $18}')"; done
