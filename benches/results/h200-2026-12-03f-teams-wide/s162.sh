set -uo pipefail
# Run 162 (thirty-fourth session), the tree with d64 taken by the cooperative-matrix subgroup
# kernel: sdpa check, tests/decode.rs's cooperative tests (d64 cases added); the planner's d64
# decode at 64/8 and 32/2 heads, 4 copies of K and V, beside PyTorch's CUDA graph.
o=/tmp/s162; mkdir -p $o /tmp/t162
r="bash .device/on-device.sh"
SECONDS=0
gunzip -c .device/t/decode.gz > /tmp/t162/decode && chmod +x /tmp/t162/decode
timeout 150 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 240 $r /tmp/t162/decode cooperative_matrix --test-threads=1 --nocapture > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
echo "tests at $SECONDS s"
long="4096,8192,16384,32768,65536,131072"
for h in 64,8 32,2; do
  timeout 120 $r .device/sdpa bench --decode --hdim 64 --heads $h --len $long --fused-only --kv-copies 4 > $o/d64-h${h/,/-}.txt 2>&1
  timeout 200 python3 .device/torch_decode_cold.py --graph --copies 4 --hdim 64 --heads ${h/,/ } --lens ${long//,/ } > $o/torch-graph-d64-${h/,/-}-c4.txt 2>&1
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s162.tgz s162
cd $o
echo "check: $(tail -2 check.txt | tr '\n' ' ')"; grep -E "FAIL|ERROR" check.txt | head -3
echo "decode test: $(grep 'test result' test-decode.txt) $(tail -1 test-decode.txt)"; grep -E "panicked|failed|SKIP" test-decode.txt | head -5
for f in d64*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f/p%.1f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
for f in torch-graph-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%.1f ", $1+0, $3*1000}')"; done
