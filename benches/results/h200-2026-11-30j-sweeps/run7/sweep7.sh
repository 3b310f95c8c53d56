set -uo pipefail
o=/tmp/s7; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"; old="$r .device/sdpa-old"
P=".device/pipeline_stats"
for k in 0 1; do for d in 64 128; do
  echo "lsum=$k d$d: $(WGPU_SDPA_TUNE=coop_lsum=$k $r $P --heads 32,32 --q-len 4096 --hdim $d --dtype f16 2>&1 | grep -h 'Register Count' | head -1 | cut -c1-60)" >> $o/regs.txt
done; done
cat $o/regs.txt
WGPU_SDPA_TUNE=coop_lsum=1 $new check --filter "coop" > $o/check-lsum.txt 2>&1
sh="--fused-only --dtype f16 --len 4096 --hdim 64,80,128"
for i in 1 2; do
  $old bench $sh > $o/old$i.txt 2>&1
  $new bench $sh > $o/new$i.txt 2>&1
  WGPU_SDPA_TUNE=coop_lsum=1 $new bench $sh > $o/lsum$i.txt 2>&1
done
$old bench --fused-only --dtype f16 --len 4096 --hdim 64,128 --mask causal > $o/oldc.txt 2>&1
WGPU_SDPA_TUNE=coop_lsum=1 $new bench --fused-only --dtype f16 --len 4096 --hdim 64,128 --mask causal > $o/lsumc.txt 2>&1
python3 .device/torch_sdpa_bench.py --dtype float16 --hdim 64 128 --lens 4096 > $o/torch.txt 2>&1
tar -C /tmp -czf $OUT/s7.tgz s7
cd $o; tail -n 1 check*.txt
for f in old* new* lsum*; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s:%s ", $4,$9,$11}')"; done
grep -v "^#" torch.txt
