set -uo pipefail
# Run 135 (thirtieth session): the short-cache splits (6322b8a) on the H200: sdpa check and
# tests/decode.rs with the new default, then the decode sweep with the new rule and the old one
# (decode_short=0) interleaved, 1 and 4 copies of K and V, 2 rounds; then issue #5's protocol
# beside PyTorch (loop of calls and CUDA graph).
o=/tmp/s135; mkdir -p $o /tmp/t135
r="bash .device/on-device.sh"
SECONDS=0
gunzip -c .device/t/decode.gz > /tmp/t135/decode && chmod +x /tmp/t135/decode
timeout 150 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r /tmp/t135/decode --test-threads=1 > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
echo "tests at $SECONDS s"
lens="256,1024,2048,4096,8192,16384"
names="new old"
declare -A K=([new]="" [old]="decode_short=0")
for i in 1 2; do
  for n in $names; do
    for c in 1 4; do
      WGPU_SDPA_TUNE="${K[$n]}" timeout 60 $r .device/sdpa bench --decode --len $lens --fused-only --kv-copies $c > $o/$n-c$c-$i.txt 2>&1
    done
  done
  names=$(echo $names | tr ' ' '\n' | tac | tr '\n' ' ')
done
all="256,1024,2048,4096,8192,16384,32768,65536,131072"
$r .device/sdpa bench --decode --len $all --json $o/decode.json > $o/decode.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens ${all//,/ } > $o/torch-decode.txt 2>&1
python3 .device/torch_decode_cold.py --graph --copies 1 --lens ${all//,/ } > $o/torch-graph.txt 2>&1
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s135.tgz s135
cd $o
echo "check: $(tail -2 check.txt | tr '\n' ' ')"; grep FAIL check.txt | head -3
echo "decode tests: $(grep 'test result' test-decode.txt) $(tail -1 test-decode.txt)"
for n in new old; do for c in 1 4; do for i in 1 2; do echo "$n c$c r$i: $(grep -E '^ *[0-9]+, ' $n-c$c-$i.txt | awk -F, '{printf "%s:%.1f ", $3, 4096*$3/$18/1e3}')"; done; done; done
echo "protocol ours: $(grep -E '^ *[0-9]+, ' decode.txt | awk -F, '{printf "%s:%.1f/%s/u%s ", $3, 4096*$3/$18/1e3, $18, $10}')"
echo "protocol torch: $(tail -9 torch-decode.txt | awk -F, '{printf "%s:%.1f ", $3, $11*1000}')"
echo "graph torch: $(grep -E '^ *[0-9]+, ' torch-graph.txt | awk -F, '{printf "%s:%.1f ", $1+0, $3*1000}')"
