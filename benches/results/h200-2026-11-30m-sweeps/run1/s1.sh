set -uo pipefail
# Sweep 1 (twelfth session): step 2 computes P once against a shared lazily-raised max; PF 0/1/2.
t=/tmp/s1; mkdir -p $t
r="bash .device/on-device.sh"
for pf in 0 1 2; do WGPU_SDPA_TUNE=decode_coop=0,decode_pf=$pf $r .device/sdpa check --filter vector > $t/check-pf$pf.txt 2>&1; echo "exit $?" >> $t/check-pf$pf.txt; done
for pf in 0 1 2; do WGPU_SDPA_TUNE=decode_coop=0,decode_pf=$pf $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > $t/ps-pf$pf.txt 2>&1; done
d="--decode --len 4096,8192,16384,32768,131072 --fused-only"
for i in 1 2; do
  WGPU_SDPA_TUNE=decode_coop=0 $r .device/sdpa-old bench $d > $t/old-$i.txt 2>&1
  for pf in 0 1 2; do WGPU_SDPA_TUNE=decode_coop=0,decode_pf=$pf $r .device/sdpa bench $d > $t/pf$pf-$i.txt 2>&1; done
done
WGPU_SDPA_REQUIRE_ADAPTER=1 WGPU_SDPA_TUNE=decode_coop=0 timeout 200 $r .device/t/decode --test-threads=1 > $t/decode-tests.txt 2>&1; echo "exit $?" >> $t/decode-tests.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 WGPU_SDPA_TUNE=decode_coop=0 timeout 100 $r .device/t/numerics --test-threads=1 > $t/numerics-tests.txt 2>&1; echo "exit $?" >> $t/numerics-tests.txt
tar -C /tmp -czf $OUT/s1.tgz s1
