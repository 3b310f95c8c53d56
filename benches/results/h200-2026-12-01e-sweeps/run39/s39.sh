set -uo pipefail
# Run 39 (see ../NOTES.md): registers and times of the in-pass merge's variants (knobs of that
# run's tree: decode_merge_ablate 1 no merge, 2 no count either, 4 workgroup barriers for the
# fences, 8 nothing at the end; decode_coherent=0 partial results not @coherent).
o=/tmp/s39; mkdir -p $o
r="bash .device/on-device.sh"
kv="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 16384,131072 --fused-only"
for v in decode_in_pass=0 decode_merge_parts=4 decode_merge_ablate=1 decode_merge_ablate=2 decode_coherent=0; do
  { for sh in "--heads 32,8 --q-len 1 --hdim 128 --dtype f16" "--heads 32,8 --q-len 1 --hdim 256 --dtype f16"; do echo "### $sh kv 16384"; WGPU_SDPA_TUNE=$v $r .device/pipeline_stats --kv-len 16384 $sh; done; } > $o/reg-$v.txt 2>&1
  WGPU_SDPA_TUNE=$v $r .device/sdpa bench $kv > $o/b-$v.txt 2>&1
done
tar -C /tmp -czf $OUT/s39.tgz s39
