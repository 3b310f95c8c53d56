set -uo pipefail
# Run 56 (not run: no device time was left after run 55). On the commit that added it or later:
# the in-pass merge's ~1.2 us that are not loads (run 52), pinned down with MERGE_ABLATE's
# profiling bits (wrong results): 1 count and fences only, 16 no third fence, 32 the first 8
# splits only, 256 no combine of the threads sharing a column quad, 512 no output stores.
o=/tmp/s56; mkdir -p $o
r="bash .device/on-device.sh"
k="--kv-len 4096,8192,16384,65536,131072 --fused-only"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 $k"
for i in 1 2 3; do
  for v in none decode_merge_ablate=1 decode_merge_ablate=16 decode_merge_ablate=32 \
      decode_merge_ablate=256 decode_merge_ablate=512 decode_merge_ablate=768 \
      decode_merge_ablate=800 decode_merge_ablate=816; do
    WGPU_SDPA_TUNE=$v $r .device/sdpa bench $d128 > $o/d128-$v-$i.txt 2>&1
  done
done
{ for v in none decode_merge_ablate=256 decode_merge_ablate=512; do echo "### $v"; WGPU_SDPA_TUNE=$v $r .device/pipeline_stats --kv-len 16384 --heads 32,8 --q-len 1 --hdim 128 --dtype f16; done; } > $o/registers.txt 2>&1
tar -C /tmp -czf $OUT/s56.tgz s56
cd $o; grep "CS: Register" registers.txt | awk '{print $4}' | tr '\n' ' '; echo
for f in d*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
