set -uo pipefail
# Run 96: the loop's steps as block_scores / block_pv (this tree, `new`): its decode sweep beside
# PyTorch's SDPA, then 10 rounds interleaved (order alternating) against the committed tree
# (sdpa0 = 88689aa, `old`) and a cleanup of new (sdpa1, `clean`: V's index computed once in
# v_at, block_scores without local copies of LaneKeys' fields); then sdpa check (both) and the
# decode and numerics tests on new.
o=/tmp/s96; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
lens="256,1024,2048,4096,8192,16384,32768,65536,131072"
$r .device/sdpa bench --decode --len $lens --json $o/decode.json > $o/decode.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens ${lens//,/ } > $o/torch-decode.txt 2>&1
echo "sweeps at $SECONDS s"
shape="--heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16"
timeout 60 $r .device/pipeline_stats $shape > $o/stats-new.txt 2>&1
grep "CS: Register" $o/stats-new.txt
declare -A B=( [old]=.device/sdpa0 [new]=.device/sdpa [clean]=.device/sdpa1 )
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 256,1024,4096,16384,32768,131072 --fused-only"
for i in 1 2 3 4 5 6 7 8 9 10; do
  if [ $((i % 2)) = 1 ]; then order="old new clean"; else order="clean new old"; fi
  for n in $order; do
    timeout 60 $r ${B[$n]} bench $d128 > $o/$n-$i.txt 2>&1
  done
done
echo "benches at $SECONDS s"
tar -C /tmp -czf $OUT/s96.tgz s96
timeout 150 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
timeout 150 $r .device/sdpa1 check > $o/check-clean.txt 2>&1; echo "exit $?" >> $o/check-clean.txt
for t in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 100 $r .device/t/$t --test-threads=1 --nocapture > $o/test-$t.txt 2>&1; echo "exit $?" >> $o/test-$t.txt
done
echo "checks at $SECONDS s"
tar -C /tmp -czf $OUT/s96.tgz s96
cd $o
echo "check: $(tail -2 check.txt | tr '\n' ' ')"
echo "check clean: $(tail -2 check-clean.txt | tr '\n' ' ')"
for t in decode numerics; do echo "$t: $(grep 'test result' test-$t.txt) $(tail -1 test-$t.txt)"; done
grep -E "cases on the subgroup|SKIPPED" test-decode.txt
grep -E '^ *[0-9]+, ' decode.txt | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}'; echo
tail -10 torch-decode.txt
for n in old new clean; do for i in 1 2 3 4 5 6 7 8 9 10; do echo "$n-$i: $(grep -E '^ *[0-9]+, ' $n-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done
