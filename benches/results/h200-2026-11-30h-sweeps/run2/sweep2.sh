set -uo pipefail
o=/tmp/s2; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"
sh="--fused-only --dtype f16 --len 4096"
for k in "coop_pipe=2,spirv_sgmem=0" "coop_pipe=2,coop_sgsync=0"; do
  n=$(echo $k | tr ',=' '__')
  WGPU_SDPA_TUNE=$k $new bench $sh --hdim 64 --blocks 64x32 > $o/$n-d64-64x32.txt 2>&1
  WGPU_SDPA_TUNE=$k $new bench $sh --hdim 64 --blocks 128x32 > $o/$n-d64-128x32.txt 2>&1
  WGPU_SDPA_TUNE=$k $new bench $sh --hdim 128 --blocks 128x16 > $o/$n-d128-128x16.txt 2>&1
  WGPU_SDPA_TUNE=$k $new bench $sh --hdim 64 --blocks 64x32 --mask causal > $o/$n-d64-causal.txt 2>&1
  echo "[$k] d64: $(WGPU_SDPA_TUNE=$k $r .device/pipeline_stats --heads 32,32 --q-len 4096 --kv-len 4096 --hdim 64 --dtype f16 2>&1 | grep -h 'Register Count' | head -1 | cut -c1-80)" >> $o/regs.txt
done
WGPU_SDPA_TUNE=coop_pipe=2,spirv_sgmem=0 $new check --filter coop > $o/check-sgmem0.txt 2>&1
tar -C /tmp -czf $OUT/s2.tgz s2
cd $o; tail -1 check-sgmem0.txt; cat regs.txt; for f in *.txt; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s:%s ", $4,$2,$11}')"; done
