set -uo pipefail
# Run 63 (twentieth session): K and V read with SPIR-V's `Nontemporal` memory operand (knob
# spirv_nontemporal=1 on our own SPIR-V, spirv_all=1), so that the stream would not evict the
# rest of L2 (the merge's instructions and partial rows), beside our SPIR-V without it and
# wgpu's translation (default).
o=/tmp/s63; mkdir -p $o
r="bash .device/on-device.sh"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 256,4096,8192,16384,65536,131072 --fused-only"
for i in 1 2; do
  for v in none spirv_all=1 spirv_all=1,spirv_nontemporal=1; do
    WGPU_SDPA_TUNE=$v $r .device/sdpa bench $d128 > $o/d128-$v-$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s63.tgz s63
cd $o
for f in d*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s ", $3, $18}')"; done
