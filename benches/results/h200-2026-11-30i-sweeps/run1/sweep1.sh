set -uo pipefail
o=/tmp/s1; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"
sh="--fused-only --dtype f16 --len 4096"
$new bench $sh --hdim 64,80,128 > $o/base.txt 2>&1
WGPU_SDPA_TUNE=coop_spad=8 $new bench $sh --hdim 64,80,128 > $o/spad8.txt 2>&1
WGPU_SDPA_TUNE=coop_spad=12 $new bench $sh --hdim 64,128 > $o/spad12.txt 2>&1
$new bench $sh --hdim 64 --blocks 128x32 > $o/base-d64-128x32.txt 2>&1
WGPU_SDPA_TUNE=coop_spad=8 $new bench $sh --hdim 64 --blocks 128x32 > $o/spad8-d64-128x32.txt 2>&1
$new bench $sh --hdim 64,128 --mask causal > $o/base-causal.txt 2>&1
WGPU_SDPA_TUNE=coop_spad=8 $new bench $sh --hdim 64,128 --mask causal > $o/spad8-causal.txt 2>&1
WGPU_SDPA_TUNE=coop_spad=8 $new bench $sh --hdim 64 --blocks 128x32 --mask causal > $o/spad8-d64-128x32-causal.txt 2>&1
$new bench $sh --hdim 128 --heads 32,8 > $o/base-gqa.txt 2>&1
WGPU_SDPA_TUNE=coop_spad=8 $new bench $sh --hdim 128 --heads 32,8 > $o/spad8-gqa.txt 2>&1
$new bench --fused-only --dtype f32 --len 4096 --hdim 64,128 > $o/base-f32.txt 2>&1
WGPU_SDPA_TUNE=coop_spad=8 $new bench --fused-only --dtype f32 --len 4096 --hdim 64,128 > $o/spad8-f32.txt 2>&1
WGPU_SDPA_TUNE=coop_spad=8 $new check --filter coop > $o/check-spad8.txt 2>&1
$new bench $sh --hdim 64,80,128 > $o/base2.txt 2>&1
WGPU_SDPA_TUNE=coop_spad=8 $new bench $sh --hdim 64,80,128 > $o/spad82.txt 2>&1
for s in "--hdim 64" "--hdim 128"; do for k in "" coop_spad=8; do echo "### $s $k"; WGPU_SDPA_TUNE=$k $r .device/pipeline_stats --q-len 4096 $s --dtype f16; done; done > $o/regs.txt 2>&1
tar -C /tmp -czf $OUT/s1.tgz s1
