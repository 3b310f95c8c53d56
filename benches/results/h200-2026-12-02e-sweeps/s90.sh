set -uo pipefail
# Run 90: the loop's steps as a function (take_block; loads as committed) against the committed
# binary (sdpa0), alone and with V clamped (decode_vc=1), 8 rounds interleaved; the decode sweep
# of both beside PyTorch's SDPA; then sdpa check and the decode and numerics tests of the tree.
o=/tmp/s90; mkdir -p $o
r="bash .device/on-device.sh"
shape="--heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16"
SECONDS=0
lens="256,1024,2048,4096,8192,16384,32768,65536,131072"
$r .device/sdpa bench --decode --len $lens --json $o/decode.json > $o/decode.txt 2>&1
$r .device/sdpa0 bench --decode --len $lens --json $o/decode0.json > $o/decode0.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens ${lens//,/ } > $o/torch-decode.txt 2>&1
echo "sweeps at $SECONDS s"
declare -A V=( [base0]="" [fn]="" [fnvc]="decode_vc=1" )
declare -A B=( [base0]=.device/sdpa0 [fn]=.device/sdpa [fnvc]=.device/sdpa )
names="base0 fn fnvc"
for n in fn fnvc; do
  WGPU_SDPA_TUNE="${V[$n]}" $r .device/pipeline_stats $shape > $o/stats-$n.txt 2>&1
  echo "$n: $(grep -m1 'Register Count' $o/stats-$n.txt | tr -s ' ')"
done
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 256,1024,4096,8192,16384,32768,65536,131072 --fused-only"
for i in 1 2 3 4 5 6 7 8; do
  for n in $names; do
    WGPU_SDPA_TUNE="${V[$n]}" timeout 100 $r ${B[$n]} bench $d128 > $o/$n-$i.txt 2>&1
  done
done
echo "benches at $SECONDS s"
tar -C /tmp -czf $OUT/s90.tgz s90
timeout 150 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
for t in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 100 $r .device/t/$t --test-threads=1 > $o/test-$t.txt 2>&1; echo "exit $?" >> $o/test-$t.txt
done
echo "checks at $SECONDS s"
tar -C /tmp -czf $OUT/s90.tgz s90
cd $o
echo "check: $(tail -2 check.txt | tr '\n' ' ')"
for t in decode numerics; do echo "$t: $(grep 'test result' test-$t.txt) $(tail -1 test-$t.txt)"; done
for f in decode.txt decode0.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
tail -12 torch-decode.txt
for n in $names; do for f in $n-[1-8].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done; done
