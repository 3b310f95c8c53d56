set -uo pipefail
# Run 64 (not run: no device time was left). Build with next/merge-twice.diff applied
# (`git apply benches/results/h200-2026-12-02-sweeps/next/merge-twice.diff`, then
# `bash ../shared/gpu/prepare.sh --release --bin sdpa --example pipeline_stats`; keep the
# committed tree's sdpa as .device/sdpa-prev). MERGE_ABLATE 128 runs the last workgroup's merge
# twice in a loop (one copy of the code; the results stay right): if the second merge costs
# much less than the first (~3.1 us at 16384 keys), the first is slow for being cold (its
# instructions fetched from memory after the K/V stream evicted them from L2), not for its
# loads; then a smaller merge, or one whose code the workgroups run earlier, is the lever.
o=/tmp/s64; mkdir -p $o
r="bash .device/on-device.sh"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,8192,16384,65536,131072 --fused-only"
for i in 1 2 3; do
  $r .device/sdpa-prev bench $d128 > $o/prev-d128-$i.txt 2>&1
  for v in none decode_merge_ablate=128 decode_merge_ablate=1; do
    WGPU_SDPA_TUNE=$v $r .device/sdpa bench $d128 > $o/d128-$v-$i.txt 2>&1
  done
done
{ for v in none decode_merge_ablate=128; do echo "### $v"; WGPU_SDPA_TUNE=$v $r .device/pipeline_stats --kv-len 16384 --heads 32,8 --q-len 1 --hdim 128 --dtype f16; done; } > $o/registers.txt 2>&1
tar -C /tmp -czf $OUT/s64.tgz s64
cd $o; grep "CS: Register" registers.txt | awk '{print $4}' | tr '\n' ' '; echo
for f in prev*.txt d*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s ", $3, $18}')"; done
