set -uo pipefail
# Run 103: the planner staging the queries as f16 for f16 splits of at most 4 strides
# (stages_half_queries; `auto`) against `decode_qh=0` (the committed planner's kernels),
# interleaved, order alternating; then other shapes; sdpa check, the decode and numerics tests,
# and the decode sweep beside PyTorch.
o=/tmp/s103; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
declare -A V=( [auto]="" [qh0]="decode_qh=0" )
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 256,1024,2048,4096,8192,16384 --fused-only"
for i in 1 2 3 4 5 6 7 8; do
  if [ $((i % 2)) = 1 ]; then order="auto qh0"; else order="qh0 auto"; fi
  for n in $order; do WGPU_SDPA_TUNE="${V[$n]}" timeout 60 $r .device/sdpa bench $d128 > $o/$n-$i.txt 2>&1; done
done
declare -A S=( [d64]="--hdim 64 --heads 32,8 --len 1" [d256]="--hdim 256 --heads 32,8 --len 1" [mha4]="--hdim 128 --heads 32,32 --len 4" [q2]="--hdim 128 --heads 32,8 --len 2" [b4]="--hdim 128 --heads 32,8 --batch 4 --len 1" )
for i in 1 2 3 4; do
  for s in d64 d256 mha4 q2 b4; do
    if [ $((i % 2)) = 1 ]; then order="auto qh0"; else order="qh0 auto"; fi
    for n in $order; do WGPU_SDPA_TUNE="${V[$n]}" timeout 60 $r .device/sdpa bench --dtype f16 ${S[$s]} --kv-len 256,1024,4096,16384 --fused-only > $o/$s-$n-$i.txt 2>&1; done
  done
done
echo "benches at $SECONDS s"
tar -C /tmp -czf $OUT/s103.tgz s103
lens="256,1024,2048,4096,8192,16384,32768,65536,131072"
$r .device/sdpa bench --decode --len $lens --json $o/decode.json > $o/decode.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens ${lens//,/ } > $o/torch-decode.txt 2>&1
timeout 150 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
for t in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 100 $r .device/t/$t --test-threads=1 --nocapture > $o/test-$t.txt 2>&1; echo "exit $?" >> $o/test-$t.txt
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s103.tgz s103
cd $o
echo "check: $(tail -2 check.txt | tr '\n' ' ')"
for t in decode numerics; do echo "$t: $(grep 'test result' test-$t.txt) $(tail -1 test-$t.txt)"; done
grep -E "cases on the subgroup|SKIPPED" test-decode.txt
grep -E '^ *[0-9]+, ' decode.txt | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}'; echo
grep -E '^ *[0-9]+, ' decode.txt | awk -F, '{print $3, $NF}' | head -7
tail -9 torch-decode.txt | awk -F, '{printf "%s:%s ", $3, $11}'; echo
for n in auto qh0; do for i in 1 2 3 4 5 6 7 8; do echo "$n-$i: $(grep -E '^ *[0-9]+, ' $n-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done
for s in d64 d256 mha4 q2 b4; do for n in auto qh0; do for i in 1 2 3 4; do echo "$s-$n-$i: $(grep -E '^ *[0-9]+, ' $s-$n-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done; done
