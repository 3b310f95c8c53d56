set -uo pipefail
# Run 148 (thirty-third session): is the 64/8 call bound by its arithmetic? K/V loads from the
# first 2 KiB (decode_ablate=128: cache hits, arithmetic kept), and without P V (256).
o=/tmp/s148; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
lens="16384,131072"
for h in 64,8 32,8; do
for v in none decode_ablate=128 decode_ablate=384 decode_ablate=32; do
  WGPU_SDPA_TUNE=$v timeout 120 $r .device/sdpa bench --decode --heads $h --len $lens --fused-only --kv-copies 4 --budget-ms 150 > $o/h${h/,/-}-$v.txt 2>&1
done
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s148.tgz s148
cd $o
for f in *.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%.1f/p%.1f ", $3+0, $18, $22}')"; done
