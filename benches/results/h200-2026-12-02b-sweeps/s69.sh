set -uo pipefail
# Run 69: the tree to commit (the arrival counter's reset past the fences, the groups_per_head
# helper, no third fence) against sdpa-prev (929d653): checks, d128 A/B, the decode sweep beside
# PyTorch in one command.
o=/tmp/s69; mkdir -p $o
r="bash .device/on-device.sh"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; $r .device/sdpa info; } > $o/info.txt 2>&1
timeout 200 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
for n in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r .device/t/$n --test-threads=1 > $o/test-$n.txt 2>&1; echo "exit $?" >> $o/test-$n.txt
done
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,8192,16384,65536,131072 --fused-only"
for i in 1 2 3 4; do
  $r .device/sdpa-prev bench $d128 > $o/prev-d128-$i.txt 2>&1
  $r .device/sdpa bench $d128 > $o/sdpa-d128-$i.txt 2>&1
done
lens=256,1024,2048,4096,8192,16384,32768,65536,131072
$r .device/sdpa bench --decode --len $lens --json $o/decode.json > $o/decode.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 \
  --lens 256 1024 2048 4096 8192 16384 32768 65536 131072 > $o/torch-decode.txt 2>&1
tar -C /tmp -czf $OUT/s69.tgz s69
cd $o; tail -1 check.txt; for n in decode numerics; do echo "$n: $(grep 'test result' test-$n.txt) $(tail -1 test-$n.txt)"; done
for f in prev*.txt sdpa*.txt decode.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
grep -E "^ *[0-9]" torch-decode.txt | awk -F, '{print $3, $11}' | tr '\n' ' '; echo
