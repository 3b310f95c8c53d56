set -uo pipefail
# Sweep 10: the first tile's V issued with its K before the queries are staged, each later tile's
# V at the end of the one before (decode_pf2=2); the output merge in 2 rounds (decode_merge=4).
t=/tmp/s10; mkdir -p $t
r="bash .device/on-device.sh"
ks="none decode_pf2=2 decode_merge=4 decode_pf2=2,decode_merge=4 decode_ablate=4 decode_merge=4,decode_ablate=4"
for k in $ks; do WGPU_SDPA_TUNE=decode_coop=0,$k $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > $t/ps-$k.txt 2>&1; done
d="--decode --len 4096,8192,16384,32768,131072 --fused-only"
for i in 1 2; do
  for k in $ks; do WGPU_SDPA_TUNE=decode_coop=0,$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1; done
done
WGPU_SDPA_TUNE=decode_coop=0,decode_pf2=2,decode_merge=4 $r .device/sdpa check --filter vector > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
tar -C /tmp -czf $OUT/s10.tgz s10
cd $t; tail -2 check.txt; for k in $ks; do echo "$k: $(grep -i 'CS: register count' ps-$k.txt | head -1 | cut -c1-40) $(grep -o 'wg_mem=[0-9]*B' ps-$k.txt | head -1)"; done
for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $18, $11}')"; done
