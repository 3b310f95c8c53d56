set -uo pipefail
# Sweep 8: step 1 chunk by chunk and step 3 key by key (decode_seq=1): registers, with 128-key tiles.
t=/tmp/s8; mkdir -p $t
r="bash .device/on-device.sh"
ks="decode_pf=1 decode_seq=1,decode_pf=1 decode_seq=1 decode_seq=1,decode_cpl=8,decode_vearly2=1 decode_seq=1,decode_cpl=8 decode_seq=1,decode_cpl=8,decode_vearly2=1,decode_pf=1"
for k in $ks; do WGPU_SDPA_TUNE=decode_coop=0,$k $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > $t/ps-$k.txt 2>&1; done
d="--decode --len 4096,8192,16384,32768,131072 --fused-only"
for i in 1 2; do
  for k in $ks; do WGPU_SDPA_TUNE=decode_coop=0,$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1; done
done
WGPU_SDPA_TUNE=decode_coop=0,decode_seq=1,decode_cpl=8,decode_vearly2=1 $r .device/sdpa check --filter vector > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
tar -C /tmp -czf $OUT/s8.tgz s8
