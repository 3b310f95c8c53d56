set -uo pipefail
# Run 161 (thirty-fourth session), the final tree 9042d58: the cooperative-matrix subgroup
# kernel at d64 (not taken by the planner there: decode_ct=1 forces it) against the subgroup
# kernel, 64/8 and 32/2 heads, 4 copies of K and V, beside PyTorch's CUDA graph.
o=/tmp/s161; mkdir -p $o
r="bash .device/on-device.sh"
long="4096,8192,16384,32768,65536,131072"
for h in 64,8 32,2; do
for v in decode_ct=0 decode_ct=1; do
  WGPU_SDPA_TUNE=$v timeout 120 $r .device/sdpa bench --decode --hdim 64 --heads $h --len $long --fused-only --kv-copies 4 > $o/d64-h${h/,/-}-$v.txt 2>&1
done
timeout 200 python3 .device/torch_decode_cold.py --graph --copies 4 --hdim 64 --heads ${h/,/ } --lens ${long//,/ } > $o/torch-graph-d64-${h/,/-}-c4.txt 2>&1
done
tar -C /tmp -czf $OUT/s161.tgz s161
cd $o
grep -h -E '^ *1, ' d64-h64-8-decode_ct=1.txt | head -1 | awk -F, '{print $23}' | cut -c1-120
for f in d64*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f ", $3+0, b/$22/1e3}')"; done
for f in torch-graph-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%.1f ", $1+0, $3*1000}')"; done
