set -uo pipefail
o=/tmp/s5; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"
sh="--fused-only --dtype f16 --len 4096 --hdim 64,128"
for a in 0 1 2 4 8 16 32 6 12 14 15; do WGPU_SDPA_TUNE=coop_ablate=$a $new bench $sh > $o/ablate$a.txt 2>&1; done
tar -C /tmp -czf $OUT/s5.tgz s5
cd $o
for f in ablate*.txt; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s:%s ", $4,$9,$11}')"; done
