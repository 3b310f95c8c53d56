set -uo pipefail
o=/tmp/s5; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"
P=".device/pipeline_stats"
for k in 0 1 2; do for d in 64 128; do
  echo "f16word=$k d$d: $(WGPU_SDPA_TUNE=coop_f16word=$k $r $P --heads 32,32 --q-len 4096 --hdim $d --dtype f16 2>&1 | grep -h 'Register Count' | head -1 | cut -c1-60)" >> $o/regs.txt
done; done
cat $o/regs.txt
$new check --filter "coop" > $o/check1.txt 2>&1
WGPU_SDPA_TUNE=coop_f16word=2 $new check --filter "coop" > $o/check2.txt 2>&1
sh="--fused-only --dtype f16 --len 4096 --hdim 64,80,128"
for i in 1 2; do
  for k in 0 1 2; do WGPU_SDPA_TUNE=coop_f16word=$k $new bench $sh > $o/w${k}_$i.txt 2>&1; done
done
for k in 0 1; do WGPU_SDPA_TUNE=coop_f16word=$k $new bench --fused-only --dtype f16 --len 4096 --hdim 64,128 --mask causal > $o/c${k}.txt 2>&1; done
python3 .device/torch_sdpa_bench.py --dtype float16 --hdim 64 128 --lens 4096 > $o/torch.txt 2>&1
tar -C /tmp -czf $OUT/s5.tgz s5
cd $o; tail -n 1 check*.txt
for f in w* c*; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s:%s ", $4,$9,$11}')"; done
grep -v "^#" torch.txt
