set -uo pipefail
# After the final run: c5e8257 (constant zero accumulator at f16 d128) beside 876f4ba (sdpa-old)
# and PyTorch in one call, then the whole check and the six device test binaries on c5e8257.
t=/tmp/after; mkdir -p $t
r="bash .device/on-device.sh"
a="--fused-only --dtype f16 --len 4096 --hdim 64,128 --mask none,causal"
g="--fused-only --dtype f16 --len 4096 --hdim 128 --heads 32,8"
for i in 1 2; do
  $r .device/sdpa-old bench $a > $t/old$i.txt 2>&1; $r .device/sdpa bench $a > $t/new$i.txt 2>&1
  $r .device/sdpa-old bench $g > $t/old-gqa$i.txt 2>&1; $r .device/sdpa bench $g > $t/new-gqa$i.txt 2>&1
done
{
  python3 .device/torch_sdpa_bench.py --hdim 64 128 --lens 4096
  python3 .device/torch_sdpa_bench.py --hdim 128 --lens 4096 --heads 32 8
  python3 .device/torch_sdpa_bench.py --hdim 64 128 --lens 4096 --mask causal
} > $t/torch.txt 2>&1
$r .device/sdpa check > $t/check.txt 2>&1; echo "check exit $?" >> $t/check.txt
for n in numerics decode correctness concurrency limits tuned_variants; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/$n --test-threads=1 > $t/$n.txt 2>&1; echo "exit $?" >> $t/$n.txt
done
tar -C /tmp -czf $OUT/after.tgz after
tail -2 $t/check.txt
for n in numerics decode correctness concurrency limits tuned_variants; do echo "$n: $(grep 'test result' $t/$n.txt)"; done
cd $t; for f in old* new*; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s/%s/%s:%s ", $3,$4,$9,$11}')"; done
grep -v "^#" torch.txt | tail -8
