set -uo pipefail
# Sweep 7: f16 tiles of 128 keys (8 K chunks a thread, decode_cpl=8), both V rounds early (decode_vearly2=1).
t=/tmp/s7; mkdir -p $t
r="bash .device/on-device.sh"
ks="decode_pf=1,decode_last=0 decode_cpl=8,decode_last=0 decode_cpl=8,decode_vearly2=1,decode_last=0 decode_cpl=8,decode_vearly2=1 decode_cpl=8,decode_vearly2=1,decode_last=0,decode_wgs=132 decode_cpl=8,decode_vearly2=1,decode_last=0,decode_wgs=396 decode_cpl=8,decode_vearly2=1,decode_pf=1,decode_last=0"
for k in decode_cpl=8,decode_vearly2=1,decode_last=0 decode_cpl=8,decode_vearly2=1; do WGPU_SDPA_TUNE=decode_coop=0,$k $r .device/sdpa check --filter vector > $t/check-$k.txt 2>&1; echo "exit $?" >> $t/check-$k.txt; done
for k in $ks; do WGPU_SDPA_TUNE=decode_coop=0,$k $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > $t/ps-$k.txt 2>&1; done
d="--decode --len 4096,8192,16384,32768,131072 --fused-only"
for i in 1 2; do
  for k in $ks; do WGPU_SDPA_TUNE=decode_coop=0,$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1; done
done
tar -C /tmp -czf $OUT/s7.tgz s7
