set -uo pipefail
# Sweep 6: PF 1 on more shapes (q_len 2-8: 8-32 query vectors a workgroup; d64), f32 with and without merge=last.
t=/tmp/s6; mkdir -p $t
r="bash .device/on-device.sh"
for q in 2 8; do for k in decode_pf=1,decode_last=0; do WGPU_SDPA_TUNE=decode_coop=0,$k $r .device/pipeline_stats --heads 32,8 --q-len $q --kv-len 16384 --hdim 128 --dtype f16 > $t/ps-q$q-$k.txt 2>&1; done; done
WGPU_SDPA_TUNE=decode_coop=0,decode_pf=1,decode_last=0 $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 64 --dtype f16 > $t/ps-d64.txt 2>&1
WGPU_SDPA_TUNE=decode_coop=0,decode_pf=1,decode_last=0 $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f32 > $t/ps-f32-pf1.txt 2>&1
WGPU_SDPA_TUNE=decode_coop=0,decode_last=1 $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f32 > $t/ps-f32-last.txt 2>&1
q="--dtype f16 --hdim 128 --heads 32,8 --len 2,4,8 --kv-len 4096,16384 --fused-only"
d64="--dtype f16 --hdim 64 --heads 32,8 --len 1 --kv-len 4096,16384,65536 --fused-only"
f32="--dtype f32 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536 --fused-only"
for i in 1 2; do
  for s in q d64 f32; do
    WGPU_SDPA_TUNE=decode_coop=0 $r .device/sdpa-old bench ${!s} > $t/$s-old-$i.txt 2>&1
    for k in decode_pf=0,decode_last=0 decode_pf=1,decode_last=0 decode_pf=0,decode_last=1; do WGPU_SDPA_TUNE=decode_coop=0,$k $r .device/sdpa bench ${!s} > $t/$s-$k-$i.txt 2>&1; done
  done
done
tar -C /tmp -czf $OUT/s6.tgz s6
