set -uo pipefail
o=/tmp/s11; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"
$new check --filter coop > $o/check-coop.txt 2>&1
sh="--fused-only --dtype f16 --len 4096"
$new bench $sh --hdim 64,80,128 > $o/bench.txt 2>&1
$new bench $sh --hdim 128 --heads 32,8 > $o/bench-gqa.txt 2>&1
$new bench $sh --hdim 64,128 --mask causal > $o/bench-causal.txt 2>&1
$new bench $sh --hdim 64,80,128 --portable > $o/portable.txt 2>&1
{
  python3 .device/torch_sdpa_bench.py --dtype float16 --hdim 64 80 128 --lens 4096
  python3 .device/torch_sdpa_bench.py --dtype float16 --hdim 128 --lens 4096 --heads 32 8
  python3 .device/torch_sdpa_bench.py --dtype float16 --hdim 64 128 --lens 4096 --mask causal
} > $o/torch.txt 2>&1
tar -C /tmp -czf $OUT/s11.tgz s11
cd $o; tail -1 check-coop.txt
for f in bench*.txt portable.txt; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s:%s(%s) ", $4,$9,$11,$14}')"; done
grep -v "^#" torch.txt | head -20
