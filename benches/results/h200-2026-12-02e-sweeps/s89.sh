set -uo pipefail
# Run 89: the loop's body as a function (take_block), its first block peeled and loaded before
# the queries' barrier (decode_pl=2) or each next block's loads at the end of the block before
# (decode_pl=3); pl0 = the function, loads as committed; base0 = the committed binary (sdpa0).
o=/tmp/s89; mkdir -p $o
r="bash .device/on-device.sh"
shape="--heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16"
declare -A V=( [base0]="" [pl0]="" [pl2]="decode_pl=2" [pl3]="decode_pl=3" )
declare -A B=( [base0]=.device/sdpa0 [pl0]=.device/sdpa [pl2]=.device/sdpa [pl3]=.device/sdpa )
names="base0 pl0 pl2 pl3"
SECONDS=0
WGPU_SDPA_TUNE=decode_pl=2 WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r .device/t/decode --test-threads=1 > $o/test-decode-pl2.txt 2>&1; echo "exit $?" >> $o/test-decode-pl2.txt
echo "decode pl2: $(grep 'test result' $o/test-decode-pl2.txt)"
for n in pl2 pl3; do
  WGPU_SDPA_TUNE="${V[$n]}" timeout 200 $r .device/sdpa check --filter vector > $o/check-$n.txt 2>&1; echo "exit $?" >> $o/check-$n.txt
  echo "check $n: $(tail -2 $o/check-$n.txt | tr '\n' ' ')"
done
echo "checks took $SECONDS s"
for n in pl0 pl2 pl3; do
  WGPU_SDPA_TUNE="${V[$n]}" $r .device/pipeline_stats $shape > $o/stats-$n.txt 2>&1
  echo "$n: $(grep -m1 'Register Count' $o/stats-$n.txt | tr -s ' ')"
done
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 256,1024,4096,8192,16384,32768,65536,131072 --fused-only"
for i in 1 2 3 4 5 6; do
  for n in $names; do
    WGPU_SDPA_TUNE="${V[$n]}" timeout 100 $r ${B[$n]} bench $d128 > $o/$n-$i.txt 2>&1
  done
done
echo "benches done at $SECONDS s"
tar -C /tmp -czf $OUT/s89.tgz s89
cd $o
for n in $names; do for f in $n-[1-6].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done; done
