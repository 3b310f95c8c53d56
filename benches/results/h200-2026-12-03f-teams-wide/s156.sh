set -uo pipefail
# Run 156 (thirty-fourth session): the cooperative-matrix subgroup kernel (slots in 4-element
# words) with 6 and 7 teams a workgroup, fewer workgroups, unpadded score slots, rescale 2^15,
# cache hits; 64/8 and 32/2 heads beside PyTorch's CUDA graph.
o=/tmp/s156; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
for v in decode_ct=1,decode_teams=7,decode_ct_sw=4; do
  WGPU_SDPA_TUNE=$v timeout 60 $r .device/pipeline_stats --heads 64,8 --q-len 1 --kv-len 131072 --hdim 128 --dtype f16 > $o/stats-$v.txt 2>&1
  echo "$v: $(grep -E 'CS: Register|plan:' $o/stats-$v.txt | cut -c1-150 | tr '\n' ' ')"
done
long="16384,65536,131072"
for h in 64,8 32,2; do
vs="decode_ct=0 decode_ct=1,decode_teams=6 decode_ct=1,decode_teams=6,decode_wgs=132 decode_ct=1,decode_teams=7,decode_ct_sw=4"
[ $h = 64,8 ] && vs="$vs decode_ct=1,decode_teams=4,decode_wgs=132 decode_ct=1,decode_teams=6,decode_ct_sw=4 decode_ct=1,decode_teams=6,decode_ct_rescale=15 decode_ct=1,decode_teams=6,decode_ablate=128 decode_ct=1,decode_teams=6,decode_wgs=528"
for v in $vs; do
  WGPU_SDPA_TUNE=$v timeout 120 $r .device/sdpa bench --decode --heads $h --len $long --fused-only --kv-copies 4 --budget-ms 150 > $o/h${h/,/-}-$v.txt 2>&1
done
done
echo "sweeps at $SECONDS s"
timeout 200 python3 .device/torch_decode_cold.py --graph --copies 4 --heads 64 8 --lens ${long//,/ } > $o/torch-graph-g8-c4.txt 2>&1
timeout 200 python3 .device/torch_decode_cold.py --graph --copies 4 --heads 32 2 --lens ${long//,/ } > $o/torch-graph-g16-c4.txt 2>&1
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s156.tgz s156
cd $o
for f in h*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f/p%.1f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
for f in torch-graph-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%.1f ", $1+0, $3*1000}')"; done
