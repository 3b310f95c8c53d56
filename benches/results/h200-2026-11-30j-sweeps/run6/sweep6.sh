set -uo pipefail
o=/tmp/s6; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"
sh="--fused-only --dtype f16 --len 4096 --hdim 32,48,64,80,96,112,128"
for i in 1 2; do
  for k in 0 1; do WGPU_SDPA_TUNE=coop_f16word=$k $new bench $sh > $o/w${k}_$i.txt 2>&1; done
done
for k in 0 1; do WGPU_SDPA_TUNE=coop_f16word=$k $new bench --fused-only --dtype f16 --len 4096 --hdim 80,96 --mask causal > $o/c${k}.txt 2>&1; done
for k in 0 1; do WGPU_SDPA_TUNE=coop_f16word=$k $new bench --fused-only --dtype f16 --len 1024 --hdim 80,96 > $o/s${k}.txt 2>&1; done
tar -C /tmp -czf $OUT/s6.tgz s6
cd $o
for f in w* c* s*; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s:%s ", $4,$9,$11}')"; done
