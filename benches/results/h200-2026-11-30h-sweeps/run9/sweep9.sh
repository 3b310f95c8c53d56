set -uo pipefail
o=/tmp/s9; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"; old="$r .device/sdpa-old"
sh="--fused-only --dtype f16 --len 4096 --hdim 64,80,128"
for i in 1 2; do
$new bench $sh > $o/new-$i.txt 2>&1
WGPU_SDPA_TUNE=coop_rflag=1 $new bench $sh > $o/rflag-$i.txt 2>&1
done
WGPU_SDPA_TUNE=coop_rflag=1 $new bench $sh --mask causal > $o/rflag-causal.txt 2>&1
WGPU_SDPA_TUNE=coop_rflag=1 $new check --filter coop > $o/check-rflag.txt 2>&1
tar -C /tmp -czf $OUT/s9.tgz s9
cd $o; tail -1 check-rflag.txt
for f in *.txt; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s:%s ", $2,$4,$11}')"; done
