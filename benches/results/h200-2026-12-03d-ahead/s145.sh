set -uo pipefail
# Run 145 (thirty-second session), tree 6f83232: where 64/8 heads (8 query vectors a KV head,
# two workgroups of 4 each re-reading K and V) lose to PyTorch: the cooperative-matrix decode
# kernel at every length (decode_coop=1), 528 workgroups (decode_wgs=528), no K/V loads
# (decode_ablate=32, profiling: wrong results); 32/8 heads alike for comparison.
o=/tmp/s145; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
lens="16384,65536,131072"
for v in none decode_coop=1 decode_wgs=528 decode_ablate=32 decode_sg_pf=0; do
  WGPU_SDPA_TUNE=$v timeout 120 $r .device/sdpa bench --decode --heads 64,8 --len $lens --fused-only --kv-copies 4 --budget-ms 150 > $o/g8-$v.txt 2>&1
done
for v in none decode_ablate=32; do
  WGPU_SDPA_TUNE=$v timeout 120 $r .device/sdpa bench --decode --len $lens --fused-only --kv-copies 4 --budget-ms 150 > $o/d128-$v.txt 2>&1
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s145.tgz s145
cd $o
for f in *.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f/p%.1f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
grep -E '^ *[0-9]+, ' g8-decode_coop=1.txt g8-none.txt | awk -F, '{print $NF}'
