set -uo pipefail
o=/tmp/s12; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"; old="$r .device/sdpa-old"
$new check --filter "coop" > $o/check.txt 2>&1
a="--fused-only --dtype f16 --len 4096 --hdim 64,80,128 --mask none,causal"
b="--fused-only --dtype f32 --len 4096 --hdim 64,128"
for i in 1 2; do
  $old bench $a > $o/old$i.txt 2>&1; $new bench $a > $o/new$i.txt 2>&1
done
$old bench $b > $o/old32.txt 2>&1; $new bench $b > $o/new32.txt 2>&1
tar -C /tmp -czf $OUT/s12.tgz s12
cd $o; tail -n 1 check.txt
for f in old* new*; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s/%s:%s ", $8,$4,$9,$11}')"; done
