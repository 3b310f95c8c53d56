set -uo pipefail
# Run 38: registers and times of the in-pass merge by splits a thread loads a round
# (decode_merge_parts 1, 2, 4) against the reduce pass (decode_in_pass=0).
o=/tmp/s38; mkdir -p $o
r="bash .device/on-device.sh"
kv="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,131072 --fused-only"
for v in decode_merge_parts=1 decode_merge_parts=2 decode_merge_parts=4 decode_in_pass=0; do
  { for sh in "--heads 32,8 --q-len 1 --hdim 128 --dtype f16" "--heads 32,8 --q-len 1 --hdim 256 --dtype f16"; do echo "### $sh kv 16384"; WGPU_SDPA_TUNE=$v $r .device/pipeline_stats --kv-len 16384 $sh; done; } > $o/reg-$v.txt 2>&1
  WGPU_SDPA_TUNE=$v $r .device/sdpa bench $kv > $o/b-$v.txt 2>&1
done
tar -C /tmp -czf $OUT/s38.tgz s38
