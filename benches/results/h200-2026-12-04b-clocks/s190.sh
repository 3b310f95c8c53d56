set -uo pipefail
# Run 190 (fortieth session): the split partial results without `@coherent`
# (decode_weak_partial=1, profiling: outside the memory model's guarantees) beside the default,
# each alone, with the merge twice (decode_merge_ablate=4096) and with the count and fences
# alone (=1, wrong results); three interleaved rounds.
o=/tmp/s190; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
WGPU_SDPA_TUNE=decode_weak_partial=1 WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 100 $r .device/sdpa check --filter vector > $o/check-weak.txt 2>&1
echo "check weak: $(tail -1 $o/check-weak.txt)"
for i in 1 2 3; do
  for k in s0 w0 s4096 w4096 s1 w1; do
    m=${k:1}; t="decode_merge_ablate=$m"; [ $m = 0 ] && t=""
    if [ ${k:0:1} = w ]; then t="decode_weak_partial=1${t:+,$t}"; fi
    WGPU_SDPA_TUNE=$t timeout 60 $r .device/sdpa bench --decode --len 2048,8192,16384,32768 > $o/$k-$i.txt 2>&1
  done
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s190.tgz s190
cd $o
for k in s0 w0 s4096 w4096 s1 w1; do for i in 1 2 3; do echo "$k-$i: $(grep -E '^ *[0-9]+, ' $k-$i.txt | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.2f/%.2f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done; done
