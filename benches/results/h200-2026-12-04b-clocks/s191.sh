set -uo pipefail
# Run 191 (fortieth session): the in-pass merge with 8 or 12 splits a round, every load of the
# round asked for before any is merged (decode_merge_ablate=16384 / 32768), beside the default
# (4 a round) and the count and fences alone (=1, wrong results); registers of each; three
# interleaved rounds.
o=/tmp/s191; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
for k in 16384 32768; do
  WGPU_SDPA_TUNE=decode_merge_ablate=$k WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 100 $r .device/sdpa check --filter vector > $o/check-$k.txt 2>&1
  echo "check $k: $(tail -1 $o/check-$k.txt)"
done
for k in 0 16384 32768; do
  t="decode_merge_ablate=$k"; [ $k = 0 ] && t=""
  WGPU_SDPA_TUNE=$t timeout 60 $r .device/pipeline_stats --q-len 1 --kv-len 16384 --heads 32,8 --dtype f16 > $o/stats-$k.txt 2>&1
  echo "stats $k: $(grep -i -m3 'regist' $o/stats-$k.txt | tr '\n' ' ' | cut -c1-300)"
done
for i in 1 2 3; do
  for k in 0 16384 32768 1; do
    t="decode_merge_ablate=$k"; [ $k = 0 ] && t=""
    WGPU_SDPA_TUNE=$t timeout 60 $r .device/sdpa bench --decode --len 2048,8192,16384,32768,131072 > $o/m$k-$i.txt 2>&1
  done
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s191.tgz s191
cd $o
for k in 0 16384 32768 1; do for i in 1 2 3; do echo "m$k-$i: $(grep -E '^ *[0-9]+, ' m$k-$i.txt | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.2f/%.2f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done; done
