set -uo pipefail
# Sweep 3: compute-only time (decode_ablate=32: no K/V loads), workgroup sizes.
t=/tmp/s3; mkdir -p $t
r="bash .device/on-device.sh"
for k in decode_wg=128 decode_wg=512; do WGPU_SDPA_TUNE=decode_coop=0,decode_pf=1,$k $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > $t/ps-$k.txt 2>&1; done
d="--decode --len 4096,8192,16384,32768,131072 --fused-only"
for i in 1 2; do
  for k in decode_pf=0,decode_ablate=32 decode_pf=1,decode_ablate=32 decode_pf=1,decode_ablate=33 decode_pf=1 decode_pf=1,decode_wg=128 decode_pf=1,decode_wg=512 decode_pf=1,decode_wg=128,decode_wgs=528 decode_pf=1,decode_wg=512,decode_wgs=132; do WGPU_SDPA_TUNE=decode_coop=0,$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1; done
done
tar -C /tmp -czf $OUT/s3.tgz s3
