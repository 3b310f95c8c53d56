set -uo pipefail
# Run 151 (thirty-third session): the cooperative-matrix subgroup kernel with K and V staged
# through each team's slot of workgroup memory (decode_ct=1): correctness, registers, speed.
o=/tmp/s151; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
WGPU_SDPA_TUNE=decode_ct=1 timeout 200 $r .device/sdpa check > $o/check-ct.txt 2>&1; echo "check rc=$? at $SECONDS s"
grep -E "FAIL|cases passed" $o/check-ct.txt | head -8
for h in 64,8 32,8; do
  WGPU_SDPA_TUNE=decode_ct=1 timeout 60 $r .device/pipeline_stats --heads $h --q-len 1 --kv-len 131072 --hdim 128 --dtype f16 > $o/stats-$h.txt 2>&1
done
grep -E "CS: Register" $o/stats-*.txt | head
lens="1024,4096,16384,65536,131072"
for h in 64,8 32,8; do
for v in decode_ct=1 decode_ct=1,decode_ablate=128 decode_ct=1,decode_teams=2 decode_ct=1,decode_teams=6; do
  WGPU_SDPA_TUNE=$v timeout 120 $r .device/sdpa bench --decode --heads $h --len $lens --fused-only --kv-copies 4 --budget-ms 150 > $o/h${h/,/-}-$v.txt 2>&1
done
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s151.tgz s151
cd $o
for f in h*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f/p%.1f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
