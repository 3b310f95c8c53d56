set -uo pipefail
# Run 150 (thirty-third session): where the cooperative-matrix subgroup kernel's time goes
# (decode_ct=1; profiling bits of wgsl/vector_coop_teams.wgsl: 512 K/V fragments from workgroup
# memory, 1024 no softmax, 2048 no rescale).
o=/tmp/s150; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
lens="16384,131072"
for v in decode_ct=1 decode_ct=1,decode_ablate=2048 decode_ct=1,decode_ablate=1024 decode_ct=1,decode_ablate=512 decode_ct=1,decode_ablate=1536; do
  WGPU_SDPA_TUNE=$v timeout 120 $r .device/sdpa bench --decode --heads 64,8 --len $lens --fused-only --kv-copies 4 --budget-ms 150 > $o/h64-8-$v.txt 2>&1
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s150.tgz s150
cd $o
for f in h*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f/p%.1f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
