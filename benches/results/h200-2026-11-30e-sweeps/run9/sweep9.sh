set -uo pipefail
o=/tmp/s9; mkdir -p $o
run="bash .device/on-device.sh .device/sdpa"
b="bench --fused-only --dtype f16 --hdim 64,128 --len 1024,4096"
$run $b > $o/staged.txt 2>&1
WGPU_SDPA_TUNE=coop_direct=1 $run $b > $o/direct.txt 2>&1
WGPU_SDPA_TUNE=coop_pipe=0 $run $b > $o/staged-pipe0.txt 2>&1
WGPU_SDPA_TUNE=coop_direct=1 $run bench --fused-only --dtype f16 --hdim 64,128 --len 4096 --mask causal > $o/direct-causal.txt 2>&1
WGPU_SDPA_TUNE=coop_direct=1 $run check > $o/check-direct.txt 2>&1; echo "check exit $?" >> $o/check-direct.txt
tar -C /tmp -czf $OUT/s9.tgz s9
tail -2 $o/check-direct.txt; grep -c "fused-coop" $o/check-direct.txt
for f in $o/*.txt; do echo "== $f"; grep -E "^ +1," $f | cut -d, -f3,4,9,11,14 ; done
