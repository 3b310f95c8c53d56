set -uo pipefail
# Run 88: each block's loads asked for at the end of the block before, the first before the
# queries' barrier (decode_pl=1), alone and with V clamped (decode_vc=1); base = committed.
o=/tmp/s88; mkdir -p $o
r="bash .device/on-device.sh"
shape="--heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16"
declare -A V=( [base]="" [pl]="decode_pl=1" [plvc]="decode_pl=1,decode_vc=1" )
names="base pl plvc"
SECONDS=0
for n in pl plvc; do
  WGPU_SDPA_TUNE="${V[$n]}" WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r .device/t/decode --test-threads=1 > $o/test-decode-$n.txt 2>&1; echo "exit $?" >> $o/test-decode-$n.txt
  echo "decode $n: $(grep 'test result' $o/test-decode-$n.txt)"
  WGPU_SDPA_TUNE="${V[$n]}" timeout 200 $r .device/sdpa check --filter vector > $o/check-$n.txt 2>&1; echo "exit $?" >> $o/check-$n.txt
  echo "check $n: $(tail -2 $o/check-$n.txt | tr '\n' ' ')"
done
echo "checks took $SECONDS s"
for n in $names; do
  WGPU_SDPA_TUNE="${V[$n]}" $r .device/pipeline_stats $shape > $o/stats-$n.txt 2>&1
  echo "$n: $(grep -m1 'Register Count' $o/stats-$n.txt | tr -s ' ')"
done
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 256,1024,4096,8192,16384,32768,65536,131072 --fused-only"
for i in 1 2 3 4 5 6; do
  for n in $names; do
    WGPU_SDPA_TUNE="${V[$n]}" timeout 100 $r .device/sdpa bench $d128 > $o/$n-$i.txt 2>&1
  done
done
echo "benches done at $SECONDS s"
tar -C /tmp -czf $OUT/s88.tgz s88
cd $o
for n in $names; do for f in $n-[1-6].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done; done
