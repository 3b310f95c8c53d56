set -uo pipefail
# Run 91: the tree with V's rows clamped where K's are read in whole lines and splits are at most
# 8 strides (clamps_v_rows; the plan shows clamped_v): its decode sweep beside PyTorch's SDPA,
# then 10 rounds interleaved against the committed binary (sdpa0) and the tree with decode_vc=0;
# then sdpa check and the decode and numerics tests.
o=/tmp/s91; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
lens="256,1024,2048,4096,8192,16384,32768,65536,131072"
$r .device/sdpa bench --decode --len $lens --json $o/decode.json > $o/decode.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens ${lens//,/ } > $o/torch-decode.txt 2>&1
echo "sweeps at $SECONDS s"
declare -A V=( [base0]="" [auto]="" [novc]="decode_vc=0" )
declare -A B=( [base0]=.device/sdpa0 [auto]=.device/sdpa [novc]=.device/sdpa )
names="base0 auto novc"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 256,1024,4096,8192,16384,32768,65536,131072 --fused-only"
for i in 1 2 3 4 5 6 7 8 9 10; do
  for n in $names; do
    WGPU_SDPA_TUNE="${V[$n]}" timeout 100 $r ${B[$n]} bench $d128 > $o/$n-$i.txt 2>&1
  done
done
echo "benches at $SECONDS s"
tar -C /tmp -czf $OUT/s91.tgz s91
timeout 150 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
for t in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 100 $r .device/t/$t --test-threads=1 --nocapture > $o/test-$t.txt 2>&1; echo "exit $?" >> $o/test-$t.txt
done
echo "checks at $SECONDS s"
tar -C /tmp -czf $OUT/s91.tgz s91
cd $o
echo "check: $(tail -2 check.txt | tr '\n' ' ')"
for t in decode numerics; do echo "$t: $(grep 'test result' test-$t.txt) $(tail -1 test-$t.txt)"; done
grep -E "cases on the subgroup|SKIPPED" test-decode.txt
grep -E '^ *[0-9]+, ' decode.txt | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}'; echo
grep -E '^ *[0-9]+, ' auto-1.txt | awk -F, '{print $3, $NF}'
tail -10 torch-decode.txt
for n in $names; do for f in $n-[1-9].txt $n-10.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done; done
