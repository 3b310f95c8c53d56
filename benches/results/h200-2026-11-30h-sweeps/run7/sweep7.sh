set -uo pipefail
o=/tmp/s7; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"; old="$r .device/sdpa-old"
sh="--fused-only --dtype f16 --len 4096 --hdim 64,128"
WGPU_SDPA_TUNE=coop_sgb=1,coop_exph=1 $new check --filter coop > $o/check-sgb-exph.txt 2>&1
$old bench $sh > $o/old.txt 2>&1
$new bench $sh > $o/new.txt 2>&1
for k in coop_sgb=1 coop_exph=1 coop_sgb=1,coop_exph=1 spirv_lang=6 coop_sgb=1,spirv_sgmem=0 coop_pipe=0 coop_pipe=0,coop_sgb=1; do
  WGPU_SDPA_TUNE=$k $new bench $sh > $o/k-$k.txt 2>&1
done
$old bench $sh --mask causal > $o/old-causal.txt 2>&1
$new bench $sh --mask causal > $o/new-causal.txt 2>&1
WGPU_SDPA_TUNE=coop_sgb=1,coop_exph=1 $new bench $sh --mask causal > $o/k-causal-sgb-exph.txt 2>&1
$old bench --fused-only --dtype f32 --len 4096 --hdim 64,128 > $o/old-f32.txt 2>&1
$new bench --fused-only --dtype f32 --len 4096 --hdim 64,128 > $o/new-f32.txt 2>&1
tar -C /tmp -czf $OUT/s7.tgz s7
cd $o; tail -1 check-sgb-exph.txt; for f in *.txt; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s:%s ", $4,$11}')"; done
