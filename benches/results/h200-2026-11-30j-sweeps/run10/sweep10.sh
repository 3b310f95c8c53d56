set -uo pipefail
o=/tmp/s10; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"; old="$r .device/sdpa-old"
$new check --filter "coop" > $o/check.txt 2>&1
$new check --filter "causal" > $o/check-causal.txt 2>&1
for i in 1 2; do
  $old bench --fused-only --dtype f16,f32 --len 4096 --hdim 64,128 --mask none,causal > $o/old$i.txt 2>&1
  $new bench --fused-only --dtype f16,f32 --len 4096 --hdim 64,128 --mask none,causal > $o/new$i.txt 2>&1
done
{ python3 .device/torch_sdpa_bench.py --dtype float16 --hdim 64 128 --lens 4096; python3 .device/torch_sdpa_bench.py --dtype float16 --hdim 64 128 --lens 4096 --mask causal; } > $o/torch.txt 2>&1
tar -C /tmp -czf $OUT/s10.tgz s10
cd $o; tail -n 1 check*.txt
for f in old* new*; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s/%s:%s ", $8,$4,$9,$11}')"; done
grep -v "^#" torch.txt
