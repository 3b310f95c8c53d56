set -uo pipefail
# Sweep 9: K a tile ahead on the kernel as it was (per-key-group softmax, decode_oldsm=1: the
# session's starting wgsl/vector.wgsl with PF added, selected in src/shader.rs) against this session's.
t=/tmp/s9; mkdir -p $t
r="bash .device/on-device.sh"
ks="decode_oldsm=1,decode_pf=0 decode_oldsm=1,decode_pf=1 decode_pf=1 decode_pf=1,decode_seq=1"
for k in $ks; do WGPU_SDPA_TUNE=decode_coop=0,$k $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > $t/ps-$k.txt 2>&1; done
d="--decode --len 4096,8192,16384,32768,131072 --fused-only"
d64="--dtype f16 --hdim 64 --heads 32,8 --len 1 --kv-len 4096,16384,65536 --fused-only"
for i in 1 2; do
  for k in $ks; do WGPU_SDPA_TUNE=decode_coop=0,$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1; WGPU_SDPA_TUNE=decode_coop=0,$k $r .device/sdpa bench $d64 > $t/d64-$k-$i.txt 2>&1; done
done
WGPU_SDPA_TUNE=decode_coop=0,decode_oldsm=1,decode_pf=1 $r .device/sdpa check --filter vector > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
tar -C /tmp -czf $OUT/s9.tgz s9
