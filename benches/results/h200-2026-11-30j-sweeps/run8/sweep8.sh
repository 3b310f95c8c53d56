set -uo pipefail
o=/tmp/s8; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"
sc="--fused-only --dtype f16 --len 4096 --hdim 64 --mask causal"
for i in 1 2; do
  $new bench $sc > $o/c$i.txt 2>&1
  WGPU_SDPA_TUNE=coop_plain=1 $new bench $sc > $o/cplain$i.txt 2>&1
  WGPU_SDPA_TUNE=coop_bq=128,coop_bk=32 $new bench $sc > $o/c128_$i.txt 2>&1
  WGPU_SDPA_TUNE=coop_bq=128,coop_bk=32,coop_plain=0 $new bench $sc > $o/c128np_$i.txt 2>&1
  $new bench --fused-only --dtype f16 --len 4096 --hdim 64 > $o/n$i.txt 2>&1
done
tar -C /tmp -czf $OUT/s8.tgz s8
cd $o
for f in c* n*; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s:%s ", $4,$9,$11}')"; done
