set -uo pipefail
# Run 154 (thirty-third session): what the cooperative-matrix subgroup kernel's arithmetic costs
# (64/8 heads; profiling bits: 128 cache hits, 1024 no softmax, 2048 no rescale).
o=/tmp/s154; mkdir -p $o
r="bash .device/on-device.sh"
for v in decode_ablate=128 decode_ablate=1152 decode_ablate=2048 decode_ablate=2176; do
  WGPU_SDPA_TUNE=decode_ct=1,$v timeout 120 $r .device/sdpa bench --decode --heads 64,8 --len 16384,131072 --fused-only --kv-copies 4 --budget-ms 150 > $o/h64-8-$v.txt 2>&1
done
tar -C /tmp -czf $OUT/s154.tgz s154
cd $o
for f in h*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f/p%.1f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
