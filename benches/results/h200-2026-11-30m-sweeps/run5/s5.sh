set -uo pipefail
# Sweep 5: the last workgroup combining the splits (merge=last, decode_last=1 default) against the reduce pass.
t=/tmp/s5; mkdir -p $t
r="bash .device/on-device.sh"
for k in decode_pf=1 decode_pf=0; do WGPU_SDPA_TUNE=decode_coop=0,$k $r .device/sdpa check --filter vector > $t/check-$k.txt 2>&1; echo "exit $?" >> $t/check-$k.txt; done
ks="decode_pf=1 decode_pf=1,decode_last=0 decode_pf=0 decode_pf=0,decode_last=0 decode_pf=1,decode_wgs=132 decode_pf=1,decode_wgs=396 decode_pf=1,decode_wgs=528"
for k in decode_pf=1 decode_pf=1,decode_last=0; do WGPU_SDPA_TUNE=decode_coop=0,$k $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > $t/ps-$k.txt 2>&1; done
d="--decode --len 4096,8192,16384,32768,131072 --fused-only"
for i in 1 2; do
  WGPU_SDPA_TUNE=decode_coop=0 $r .device/sdpa-old bench $d > $t/old-$i.txt 2>&1
  for k in $ks; do WGPU_SDPA_TUNE=decode_coop=0,$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1; done
done
WGPU_SDPA_REQUIRE_ADAPTER=1 WGPU_SDPA_TUNE=decode_coop=0,decode_pf=1 timeout 200 $r .device/t/decode --test-threads=1 > $t/decode-tests.txt 2>&1; echo "exit $?" >> $t/decode-tests.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 WGPU_SDPA_TUNE=decode_pf=1 timeout 200 $r .device/t/numerics --test-threads=1 > $t/numerics-tests.txt 2>&1; echo "exit $?" >> $t/numerics-tests.txt
tar -C /tmp -czf $OUT/s5.tgz s5
