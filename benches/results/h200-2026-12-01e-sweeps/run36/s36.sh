set -uo pipefail
# Run 36: reduce pass 8 splits a round (new default) vs 4 (reduce_parts=4) vs old (420b418);
# preload variant (decode_preload=1); no reduce pass (decode_ablate=1) with/without preload.
t=/tmp/s36; mkdir -p $t
r="bash .device/on-device.sh"
timeout 240 $r .device/sdpa check > $t/check.txt 2>&1; echo "check exit $?" >> $t/check.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode --test-threads=1 > $t/test-decode.txt 2>&1; echo "exit $?" >> $t/test-decode.txt
WGPU_SDPA_TUNE=decode_preload=1 WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode --test-threads=1 > $t/test-decode-preload.txt 2>&1; echo "exit $?" >> $t/test-decode-preload.txt
kv="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536,131072 --fused-only"
for i in 1 2; do
  $r .device/sdpa-old bench $kv > $t/old-$i.txt 2>&1
  $r .device/sdpa bench $kv > $t/new-$i.txt 2>&1
  WGPU_SDPA_TUNE=reduce_parts=4 $r .device/sdpa bench $kv > $t/parts4-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_preload=1 $r .device/sdpa bench $kv > $t/preload-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_ablate=1 $r .device/sdpa bench $kv > $t/noreduce-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_ablate=1,decode_preload=1 $r .device/sdpa bench $kv > $t/noreduce-preload-$i.txt 2>&1
done
k2="--kv-len 4096,16384,65536,131072 --fused-only"
d256="--dtype f16 --hdim 256 --heads 32,8 --len 1 $k2"
d64="--dtype f16 --hdim 64 --heads 32,8 --len 1 $k2"
f32="--dtype f32 --hdim 128 --heads 32,8 --len 1 $k2"
q2="--dtype f16 --hdim 128 --heads 32,8 --len 2 $k2"
mha="--dtype f16 --hdim 128 --heads 32,32 --len 1 $k2"
for s in d256 d64 f32 q2 mha; do
  $r .device/sdpa bench ${!s} > $t/x-$s.txt 2>&1
  $r .device/sdpa-old bench ${!s} > $t/x-old-$s.txt 2>&1
  WGPU_SDPA_TUNE=decode_preload=1 $r .device/sdpa bench ${!s} > $t/x-preload-$s.txt 2>&1
done
tar -C /tmp -czf $OUT/s36.tgz s36
