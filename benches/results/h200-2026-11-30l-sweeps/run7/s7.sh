set -uo pipefail
# Sweep 7: sweep 6 with the next tile stored at constant offsets (a branch per buffer; with
# the offset computed the compiler stored every f16 alone), splits aimed at 132 workgroups
# (occupancy), no check or tests.
t=/tmp/s7; mkdir -p $t
r="bash .device/on-device.sh"
bash .device/sass.sh capture $t/cache --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > /dev/null 2>&1
d="--decode --len 256,4096,16384,32768,131072"
ks="none decode_coop=0 decode_ablate=32 decode_wgs=132"
for i in 1 2; do
  for k in $ks; do WGPU_SDPA_TUNE=$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1; done
done
tar -C /tmp -czf $OUT/s7.tgz s7
grep -i -E "regist|plan" $t/cache/pipeline_stats.txt | head -3
cd $t; for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $18, $19}')"; done
