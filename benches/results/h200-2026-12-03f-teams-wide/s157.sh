set -uo pipefail
# Run 157 (thirty-fourth session): the cooperative-matrix subgroup kernel with one workgroup an
# SM (decode_wgs=132) and 6 or 7 teams, from 4096 keys, for 4, 8 and 16 query vectors a KV
# head, beside the subgroup kernel and PyTorch's CUDA graph.
o=/tmp/s157; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
lens="4096,8192,16384,32768,65536,131072"
for h in 64,8 32,2 32,8; do
vs="decode_ct=0 decode_ct=1,decode_teams=6,decode_wgs=132 decode_ct=1,decode_teams=7,decode_ct_sw=4,decode_wgs=132"
[ $h = 64,8 ] && vs="$vs decode_ct=1,decode_teams=7,decode_ct_sw=4,decode_wgs=198 decode_ct=1,decode_teams=7,decode_ct_sw=4,decode_wgs=132,decode_ablate=128"
for v in $vs; do
  WGPU_SDPA_TUNE=$v timeout 120 $r .device/sdpa bench --decode --heads $h --len $lens --fused-only --kv-copies 4 --budget-ms 150 > $o/h${h/,/-}-$v.txt 2>&1
done
done
echo "sweeps at $SECONDS s"
for h in "64 8" "32 2" "32 8"; do
timeout 200 python3 .device/torch_decode_cold.py --graph --copies 4 --heads $h --lens ${lens//,/ } > $o/torch-graph-${h/ /-}-c4.txt 2>&1
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s157.tgz s157
cd $o
for f in h*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f ", $3+0, b/$22/1e3}')"; done
for f in torch-graph-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%.1f ", $1+0, $3*1000}')"; done
