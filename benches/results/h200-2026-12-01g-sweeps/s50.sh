set -uo pipefail
# Run 50 (nineteenth session). sdpa = c41cdb0 + MERGE_ABLATE bit 32 (profiling: the in-pass
# merge takes the first 8 splits only, one round a lane). The in-pass tail decomposed: default,
# count and fences only (=1), one round (=32); groups of 8 splits a round; 32 splits (decode_wgs=256).
o=/tmp/s50; mkdir -p $o
r="bash .device/on-device.sh"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; $r .device/sdpa info; } > $o/info.txt 2>&1
k="--kv-len 4096,8192,16384,65536,131072 --fused-only"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 $k"
for i in 1 2 3; do
  for v in none decode_merge_ablate=32 decode_merge_ablate=1 decode_merge_parts=8 decode_wgs=256; do
    WGPU_SDPA_TUNE=$v $r .device/sdpa bench $d128 > $o/d128-$v-$i.txt 2>&1
  done
done
{ for v in decode_merge_parts=4 decode_merge_parts=8; do echo "### $v"; WGPU_SDPA_TUNE=$v $r .device/pipeline_stats --kv-len 16384 --heads 32,8 --q-len 1 --hdim 128 --dtype f16; done; } > $o/registers.txt 2>&1
timeout 200 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
tar -C /tmp -czf $OUT/s50.tgz s50
cd $o; tail -2 check.txt; grep "CS: Register" registers.txt | awk '{print $4}' | tr '\n' ' '; echo
for f in d*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
