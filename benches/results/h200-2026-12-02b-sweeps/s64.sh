set -uo pipefail
# Run 64 (not run: no device time was left in the twentieth session). Three builds of the
# commit, each copied out of target/release after `bash ../shared/gpu/prepare.sh --release --bin
# sdpa --example pipeline_stats`:
#   .device/sdpa       the commit as it is;
#   .device/sdpa-twice with next/merge-twice.diff applied (`git apply`, build, copy, `git checkout
#                      wgsl src`): MERGE_ABLATE 128 runs the last workgroup's merge twice in a
#                      loop (one copy of the code; the results stay right);
#   .device/sdpa-warm  with next/merge-warm.diff applied: knob decode_merge_warm=1 has the
#                      workgroups that did not arrive last run the merge's code dry (one round
#                      over their own split's rows, nothing stored; the results stay right).
# If the second merge costs much less than the first (~3.1 us at 16384 keys), the first is slow
# for being cold (its instructions fetched from memory after the K/V stream evicted them from
# L2), not for its loads; sdpa-warm is one remedy (the last workgroup's SM may have run the code
# already). Both patches also change the default kernels' code a little: their `none` rows are
# the baseline for their own knob, `sdpa` the commit's.
o=/tmp/s64; mkdir -p $o
r="bash .device/on-device.sh"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,8192,16384,65536,131072 --fused-only"
for i in 1 2 3; do
  $r .device/sdpa bench $d128 > $o/sdpa-$i.txt 2>&1
  for v in none decode_merge_ablate=128; do
    WGPU_SDPA_TUNE=$v $r .device/sdpa-twice bench $d128 > $o/twice-$v-$i.txt 2>&1
  done
  for v in none decode_merge_warm=1; do
    WGPU_SDPA_TUNE=$v $r .device/sdpa-warm bench $d128 > $o/warm-$v-$i.txt 2>&1
  done
done
WGPU_SDPA_TUNE=decode_merge_warm=1 timeout 200 $r .device/sdpa-warm check > $o/check-warm.txt 2>&1; echo "exit $?" >> $o/check-warm.txt
tar -C /tmp -czf $OUT/s64.tgz s64
cd $o; tail -2 check-warm.txt
for f in sdpa-*.txt twice-*.txt warm-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s ", $3, $18}')"; done
