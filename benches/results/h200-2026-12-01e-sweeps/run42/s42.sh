set -uo pipefail
# Run 42: the in-pass merge with no workgroup memory of its own (its parts in o_s) against the
# reduce pass (decode_in_pass=0): registers, d128 32/8 twice, other shapes once.
o=/tmp/s42; mkdir -p $o
r="bash .device/on-device.sh"
for v in decode_merge_parts=4 decode_in_pass=0; do
  { for sh in "--heads 32,8 --q-len 1 --hdim 128 --dtype f16" "--heads 32,8 --q-len 1 --hdim 256 --dtype f16" "--heads 32,8 --q-len 1 --hdim 64 --dtype f16"; do echo "### $sh kv 16384"; WGPU_SDPA_TUNE=$v $r .device/pipeline_stats --kv-len 16384 $sh; done; } > $o/reg-$v.txt 2>&1
done
k="--kv-len 4096,16384,65536,131072 --fused-only"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 $k"
d256="--dtype f16 --hdim 256 --heads 32,8 --len 1 $k"
d64="--dtype f16 --hdim 64 --heads 32,8 --len 1 $k"
f32="--dtype f32 --hdim 128 --heads 32,8 --len 1 $k"
q2="--dtype f16 --hdim 128 --heads 32,8 --len 2 $k"
mha="--dtype f16 --hdim 128 --heads 32,32 --len 1 $k"
for i in 1 2; do for v in decode_merge_parts=4 decode_in_pass=0; do
  WGPU_SDPA_TUNE=$v $r .device/sdpa bench $d128 > $o/d128-$v-$i.txt 2>&1
done; done
for s in d256 d64 f32 q2 mha; do for v in decode_merge_parts=4 decode_in_pass=0; do
  WGPU_SDPA_TUNE=$v $r .device/sdpa bench ${!s} > $o/$s-$v.txt 2>&1
done; done
tar -C /tmp -czf $OUT/s42.tgz s42
