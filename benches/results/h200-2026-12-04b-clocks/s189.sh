set -uo pipefail
# Run 189 (fortieth session): the in-pass merge twice (decode_merge_ablate=4096: the second on
# warm caches; 8192: first a pass over a quarter of the lines, then the merge), beside the
# default and the count and fences alone (=1, profiling, wrong results); three interleaved rounds.
o=/tmp/s189; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
for k in 4096 8192; do
  WGPU_SDPA_TUNE=decode_merge_ablate=$k WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 100 $r .device/sdpa check --filter vector > $o/check-$k.txt 2>&1
  echo "check $k: $(tail -1 $o/check-$k.txt)"
done
for i in 1 2 3; do
  for k in 0 4096 8192 1; do
    if [ $k = 0 ]; then t=""; else t="decode_merge_ablate=$k"; fi
    WGPU_SDPA_TUNE=$t timeout 60 $r .device/sdpa bench --decode --len 2048,4096,8192,16384,32768 > $o/m$k-$i.txt 2>&1
  done
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s189.tgz s189
cd $o
for k in 0 4096 8192 1; do for i in 1 2 3; do echo "m$k-$i: $(grep -E '^ *[0-9]+, ' m$k-$i.txt | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.2f/%.2f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done; done
