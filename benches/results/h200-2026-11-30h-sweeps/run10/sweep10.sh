set -uo pipefail
o=/tmp/s10; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"; c85="$r .device/sdpa-c85"
sh="--fused-only --dtype f16 --len 4096"
$c85 bench $sh --hdim 64,80,128 > $o/c85.txt 2>&1
$new bench $sh --hdim 64,80,128 > $o/new.txt 2>&1
WGPU_SDPA_TUNE=coop_plain=1 $new bench $sh --hdim 64,80,128 > $o/plain.txt 2>&1
WGPU_SDPA_TUNE=coop_plain=1 $new bench $sh --hdim 64,128 --mask causal > $o/plain-causal.txt 2>&1
for b in 128x32 64x64 128x16; do $c85 bench $sh --hdim 64 --blocks $b > $o/c85-d64-$b.txt 2>&1; done
for b in 128x32 64x64; do $c85 bench $sh --hdim 80 --blocks $b > $o/c85-d80-$b.txt 2>&1; done
for b in 64x32 128x16; do $c85 bench $sh --hdim 128 --blocks $b > $o/c85-d128-$b.txt 2>&1; done
WGPU_SDPA_TUNE=coop_plain=1 $new check --filter coop > $o/check-plain.txt 2>&1
tar -C /tmp -czf $OUT/s10.tgz s10
cd $o; tail -1 check-plain.txt
for f in *.txt; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s:%s ", $2,$4,$11}')"; done
