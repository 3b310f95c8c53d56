set -uo pipefail
# Run 59 (twentieth session): the in-pass merge's rounds against its bytes. MERGE_ABLATE
# (profiling, wrong results): 32 the first 8 splits only (one round a thread); 64 every round
# loads the thread's first group again (the same rounds, a quarter of the distinct lines).
o=/tmp/s59; mkdir -p $o
r="bash .device/on-device.sh"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,8192,16384,65536,131072 --fused-only"
for i in 1 2 3; do
  for v in none decode_merge_ablate=32 decode_merge_ablate=64 decode_merge_ablate=1; do
    WGPU_SDPA_TUNE=$v $r .device/sdpa bench $d128 > $o/d128-$v-$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s59.tgz s59
cd $o; for f in d*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
