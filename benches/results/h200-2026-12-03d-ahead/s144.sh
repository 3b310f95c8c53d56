set -uo pipefail
# Run 144 (thirty-second session), tree 6f83232: the subgroup decode kernel's loads a block
# ahead for f16 d128 splits of more than 8 strides (loads_ahead). sdpa check, tests/decode.rs
# and tests/embedding.rs; the decode sweep at d128 (twice) and d256 with 4 copies of K and V
# beside PyTorch's CUDA graph of the same calls; 64/8 and 32/32 heads at d128 likewise; then
# issue #5's protocol.
o=/tmp/s144; mkdir -p $o /tmp/t144
r="bash .device/on-device.sh"
SECONDS=0
for t in decode embedding; do gunzip -c .device/t/$t.gz > /tmp/t144/$t && chmod +x /tmp/t144/$t; done
timeout 150 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
for t in decode embedding; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r /tmp/t144/$t --test-threads=1 --nocapture > $o/test-$t.txt 2>&1; echo "exit $?" >> $o/test-$t.txt
done
echo "tests at $SECONDS s"
all="256,1024,2048,4096,8192,16384,32768,65536,131072"
long="4096,8192,16384,32768,65536,131072"
for i in 1 2; do
  timeout 120 $r .device/sdpa bench --decode --len $all --fused-only --kv-copies 4 --json $o/d128-c4-$i.json > $o/d128-c4-$i.txt 2>&1
done
timeout 120 $r .device/sdpa bench --decode --hdim 256 --len $all --fused-only --kv-copies 4 > $o/d256-c4.txt 2>&1
timeout 120 $r .device/sdpa bench --decode --heads 64,8 --len $long --fused-only --kv-copies 4 > $o/g8-c4.txt 2>&1
timeout 120 $r .device/sdpa bench --decode --heads 32,32 --len $long --fused-only --kv-copies 4 > $o/mha-c4.txt 2>&1
echo "sweeps at $SECONDS s"
timeout 200 python3 .device/torch_decode_cold.py --graph --copies 4 --lens ${all//,/ } > $o/torch-graph-c4.txt 2>&1
timeout 200 python3 .device/torch_decode_cold.py --graph --copies 4 --hdim 256 --lens ${all//,/ } > $o/torch-graph-d256-c4.txt 2>&1
timeout 200 python3 .device/torch_decode_cold.py --graph --copies 4 --heads 64 8 --lens ${long//,/ } > $o/torch-graph-g8-c4.txt 2>&1
timeout 200 python3 .device/torch_decode_cold.py --graph --copies 4 --heads 32 32 --lens ${long//,/ } > $o/torch-graph-mha-c4.txt 2>&1
$r .device/sdpa bench --decode --len $all --json $o/decode.json > $o/decode.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens ${all//,/ } > $o/torch-decode.txt 2>&1
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s144.tgz s144
cd $o
echo "check: $(tail -2 check.txt | tr '\n' ' ')"; grep FAIL check.txt | head -3
for t in decode embedding; do echo "$t tests: $(grep 'test result' test-$t.txt) $(tail -1 test-$t.txt)"; done
grep "cases on the subgroup" test-decode.txt
for f in d128-c4-1.txt d128-c4-2.txt d256-c4.txt g8-c4.txt mha-c4.txt decode.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f/b%.1f/p%.1f ", $3+0, b/$18/1e3, b/$20/1e3, b/$22/1e3}')"; done
echo "decode GB/s: $(grep -E '^ *[0-9]+, ' decode.txt | awk -F, '{printf "%s:%s/u%s ", $3+0, $18+0, $10+0}')"
for f in torch-graph-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%.1f ", $1+0, $3*1000}')"; done
echo "protocol torch: $(tail -9 torch-decode.txt | awk -F, '{printf "%s:%.1f ", $3, $11*1000}')"
grep -E '^ *[0-9]+, ' d128-c4-1.txt | awk -F, '{print $NF}'
