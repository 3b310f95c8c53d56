set -uo pipefail
# Run 105 (twenty-sixth session): the final tree of the last session (e938327) against the
# review's cleanup of the scores' query chunks (`sdpa1`: one FMA helper, `query_chunk` choosing
# q_s or qh_s), interleaved, order alternating; other shapes; sdpa check and the decode and
# numerics tests on e938327; the decode sweep beside PyTorch; the read-only yardstick.
o=/tmp/s105; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
declare -A B=( [head]=".device/sdpa" [clean]=".device/sdpa1" )
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 256,1024,4096,8192,16384,32768,131072 --fused-only"
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
  if [ $((i % 2)) = 1 ]; then order="head clean"; else order="clean head"; fi
  for n in $order; do timeout 60 $r ${B[$n]} bench $d128 > $o/$n-$i.txt 2>&1; done
done
declare -A S=( [d64]="--dtype f16 --hdim 64 --heads 32,8 --len 1" [f32]="--dtype f32 --hdim 128 --heads 32,8 --len 1" [d256]="--dtype f16 --hdim 256 --heads 32,8 --len 1" [mha4]="--dtype f16 --hdim 128 --heads 32,32 --len 4" )
for i in 1 2 3 4; do
  for s in d64 f32 d256 mha4; do
    if [ $((i % 2)) = 1 ]; then order="head clean"; else order="clean head"; fi
    for n in $order; do timeout 60 $r ${B[$n]} bench ${S[$s]} --kv-len 1024,4096,16384,65536 --fused-only > $o/$s-$n-$i.txt 2>&1; done
  done
done
echo "benches at $SECONDS s"
tar -C /tmp -czf $OUT/s105.tgz s105
lens="256,1024,2048,4096,8192,16384,32768,65536,131072"
$r .device/sdpa bench --decode --len $lens --json $o/decode.json > $o/decode.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens ${lens//,/ } > $o/torch-decode.txt 2>&1
timeout 60 $r .device/read_bandwidth 16384 131072 > $o/read_bandwidth.txt 2>&1
timeout 150 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
for t in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 100 $r .device/t/$t --test-threads=1 --nocapture > $o/test-$t.txt 2>&1; echo "exit $?" >> $o/test-$t.txt
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s105.tgz s105
cd $o
echo "check: $(tail -2 check.txt | tr '\n' ' ')"
for t in decode numerics; do echo "$t: $(grep 'test result' test-$t.txt) $(tail -1 test-$t.txt)"; done
grep -E "cases on the subgroup|SKIPPED" test-decode.txt
grep -E '^ *[0-9]+, ' decode.txt | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}'; echo
grep -E '^ *[0-9]+, ' decode.txt | awk -F, '{print $3, $NF}' | head -7
tail -9 torch-decode.txt | awk -F, '{printf "%s:%s ", $3, $11}'; echo
cat read_bandwidth.txt
for n in head clean; do for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "$n-$i: $(grep -E '^ *[0-9]+, ' $n-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done
for s in d64 f32 d256 mha4; do for n in head clean; do for i in 1 2 3 4; do echo "$s-$n-$i: $(grep -E '^ *[0-9]+, ' $s-$n-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done; done
