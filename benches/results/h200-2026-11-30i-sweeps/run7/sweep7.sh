set -uo pipefail
o=/tmp/s7; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"
sh="--fused-only --dtype f16 --len 4096"
for e in 1 4; do WGPU_SDPA_TUNE=coop_expf=$e $new check --filter coop > $o/check-expf$e.txt 2>&1; done
for e in 0 1 2 4; do WGPU_SDPA_TUNE=coop_expf=$e $new bench $sh --hdim 64,80,128 > $o/expf$e.txt 2>&1; done
for e in 0 1 2; do WGPU_SDPA_TUNE=coop_expf=$e $new bench $sh --hdim 64,128 --mask causal > $o/expf$e-causal.txt 2>&1; done
for e in 0 1 2; do WGPU_SDPA_TUNE=coop_expf=$e $new bench $sh --hdim 64,80,128 > $o/expf$e-again.txt 2>&1; done
tar -C /tmp -czf $OUT/s7.tgz s7
cd $o; for f in check*; do tail -n 1 $f; done; grep "f16" check-expf1.txt | cut -c1-75
for f in expf*.txt; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s:%s ", $4,$9,$11}')"; done
