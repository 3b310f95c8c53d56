set -uo pipefail
# Run 66: what the fences cost (the commit's profiling bits, decode_merge_ablate): 8 nothing
# after the split's stores; 2 the first fence only; 1 the count and its fences; 4 workgroup
# barriers in place of the three device-scope fences (MEMBAR.SC.GPU in the SASS of run 65);
# 20 that and no third fence. All but `none` profiling only.
o=/tmp/s66; mkdir -p $o
r="bash .device/on-device.sh"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536 --fused-only"
for i in 1 2 3; do
  for v in none 8 2 1 4 20; do
    WGPU_SDPA_TUNE=decode_merge_ablate=$v $r .device/sdpa bench $d128 > $o/a$v-$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s66.tgz s66
cd $o
for v in none 8 2 1 4 20; do for i in 1 2 3; do f=a$v-$i.txt; echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done
