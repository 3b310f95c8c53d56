set -uo pipefail
# Sweep 2: PF 3 (next tile's K after step 1, V after step 3), splits, ablations.
t=/tmp/s2; mkdir -p $t
r="bash .device/on-device.sh"
for pf in 3; do WGPU_SDPA_TUNE=decode_coop=0,decode_pf=$pf $r .device/sdpa check --filter vector > $t/check-pf$pf.txt 2>&1; echo "exit $?" >> $t/check-pf$pf.txt; done
for pf in 1 3; do WGPU_SDPA_TUNE=decode_coop=0,decode_pf=$pf $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > $t/ps-pf$pf.txt 2>&1; done
d="--decode --len 4096,8192,16384,32768,131072 --fused-only"
for i in 1 2; do
  WGPU_SDPA_TUNE=decode_coop=0 $r .device/sdpa-old bench $d > $t/old-$i.txt 2>&1
  for k in decode_pf=1 decode_pf=3 decode_pf=3,decode_wgs=132 decode_pf=3,decode_wgs=528 decode_pf=3,decode_ablate=4 decode_pf=3,decode_ablate=1 decode_pf=1,decode_ablate=4; do WGPU_SDPA_TUNE=decode_coop=0,$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1; done
done
WGPU_SDPA_REQUIRE_ADAPTER=1 WGPU_SDPA_TUNE=decode_coop=0,decode_pf=3 timeout 200 $r .device/t/decode --test-threads=1 > $t/decode-tests.txt 2>&1; echo "exit $?" >> $t/decode-tests.txt
tar -C /tmp -czf $OUT/s2.tgz s2
