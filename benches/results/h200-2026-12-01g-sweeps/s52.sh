set -uo pipefail
# Run 52 (nineteenth session). Where the in-pass merge's tail goes. sdpa = the committed
# candidate (run 50's kernels without the MERGE_PARTS knob); sdpa-x = it with profiling hacks
# (not committed): X_NONCOH=1 declares `partial` without @coherent (against the memory model:
# profiling only), MERGE_ABLATE 64 no (max, sum) loads, 128 no column-quad loads (wrong results).
o=/tmp/s52; mkdir -p $o
r="bash .device/on-device.sh"
k="--kv-len 4096,8192,16384,65536,131072 --fused-only"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 $k"
for i in 1 2 3; do
  $r .device/sdpa bench $d128 > $o/sdpa-$i.txt 2>&1
  $r .device/sdpa-x bench $d128 > $o/x-$i.txt 2>&1
  X_NONCOH=1 $r .device/sdpa-x bench $d128 > $o/x-noncoh-$i.txt 2>&1
  for v in 64 128 192 1 32; do
    WGPU_SDPA_TUNE=decode_merge_ablate=$v $r .device/sdpa-x bench $d128 > $o/x-ablate$v-$i.txt 2>&1
  done
done
{ echo "### x"; $r .device/pipeline_stats-x --kv-len 16384 --heads 32,8 --q-len 1 --hdim 128 --dtype f16; echo "### x noncoh"; X_NONCOH=1 $r .device/pipeline_stats-x --kv-len 16384 --heads 32,8 --q-len 1 --hdim 128 --dtype f16; echo "### sdpa"; $r .device/pipeline_stats --kv-len 16384 --heads 32,8 --q-len 1 --hdim 128 --dtype f16; } > $o/registers.txt 2>&1
X_NONCOH=1 timeout 200 $r .device/sdpa-x check > $o/check-noncoh.txt 2>&1; echo "check exit $?" >> $o/check-noncoh.txt
tar -C /tmp -czf $OUT/s52.tgz s52
cd $o; tail -2 check-noncoh.txt
grep "CS: Register" registers.txt | awk '{print $4}' | tr '\n' ' '; echo
for f in *.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
