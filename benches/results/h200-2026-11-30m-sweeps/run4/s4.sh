set -uo pipefail
# Sweep 4: V a tile ahead with 32-key tiles (decode_cpl=2), 128-thread workgroups.
t=/tmp/s4; mkdir -p $t
r="bash .device/on-device.sh"
ks="decode_pf=1 decode_pf=2,decode_cpl=2 decode_pf=1,decode_cpl=2 decode_pf=3,decode_cpl=2 decode_pf=1,decode_wg=128,decode_merge=2 decode_pf=2,decode_wg=128,decode_merge=2 decode_pf=2,decode_cpl=2,decode_wg=512"
for k in $ks; do WGPU_SDPA_TUNE=decode_coop=0,$k $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > $t/ps-$k.txt 2>&1; done
d="--decode --len 4096,8192,16384,32768,131072 --fused-only"
for i in 1 2; do
  for k in $ks; do WGPU_SDPA_TUNE=decode_coop=0,$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1; done
done
tar -C /tmp -czf $OUT/s4.tgz s4
