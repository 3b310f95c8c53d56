set -uo pipefail
# Run 60 (twentieth session): the in-pass merge with its split count a compile-time constant
# (knob decode_merge_splits=33, profiling: right only where the plan has 33 splits, 16384 keys
# and up here), so that the driver may unroll the rounds and issue their loads early.
o=/tmp/s60; mkdir -p $o
r="bash .device/on-device.sh"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 16384,32768,65536,131072 --fused-only"
d64="--dtype f16 --hdim 64 --heads 32,8 --len 1 --kv-len 16384,32768,65536,131072 --fused-only"
for i in 1 2 3; do
  for v in none decode_merge_splits=33 decode_merge_splits=40; do
    WGPU_SDPA_TUNE=$v $r .device/sdpa bench $d128 > $o/d128-$v-$i.txt 2>&1
  done
done
$r .device/sdpa bench $d64 > $o/d64-none.txt 2>&1
WGPU_SDPA_TUNE=decode_merge_splits=32 $r .device/sdpa bench $d64 > $o/d64-decode_merge_splits=32.txt 2>&1
{ for v in none decode_merge_splits=33; do echo "### $v"; WGPU_SDPA_TUNE=$v $r .device/pipeline_stats --kv-len 16384 --heads 32,8 --q-len 1 --hdim 128 --dtype f16; done; } > $o/registers.txt 2>&1
tar -C /tmp -czf $OUT/s60.tgz s60
cd $o; grep "CS: Register" registers.txt | awk '{print $4}' | tr '\n' ' '; echo
for f in d*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
