set -uo pipefail
o=/tmp/s9; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"
sc="--fused-only --dtype f16 --len 4096 --hdim 64 --mask causal"
for i in 1 2; do
  $new bench $sc > $o/c_default_$i.txt 2>&1
  for k in coop_f16word=1 coop_spad=8 coop_rflag=0 coop_first=1 coop_endsg=0 coop_plain=1,coop_f16word=1 coop_bk=16,coop_bq=64 coop_bk=64,coop_bq=64; do
    WGPU_SDPA_TUNE=$k $new bench $sc > $o/c_${k//,/+}_$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s9.tgz s9
cd $o
for f in c_*; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s:%s ", $4,$9,$11}')"; done
