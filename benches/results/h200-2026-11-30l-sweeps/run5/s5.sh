set -uo pipefail
# Sweep 5: where the cooperative-matrix decode kernel's time goes: ablations (decode_ablate 4 no
# KV tiles, 32 no K/V loads, 1 no reduce pass), splits aimed at 132 workgroups, and its machine
# code (the driver's shader cache, scripts/sass.sh).
t=/tmp/s5; mkdir -p $t
r="bash .device/on-device.sh"
bash .device/sass.sh capture $t/cache --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > /dev/null 2>&1
d="--decode --len 4096,16384,131072"
ks="none decode_ablate=32 decode_ablate=4 decode_ablate=1 decode_ablate=33 decode_wgs=132 decode_coop=0,decode_ablate=1"
for i in 1 2; do
  for k in $ks; do WGPU_SDPA_TUNE=$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1; done
done
tar -C /tmp -czf $OUT/s5.tgz s5
cat $t/cache/pipeline_stats.txt | grep -i -E "regist|plan" | head -4
cd $t; for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $18, $19}')"; done
