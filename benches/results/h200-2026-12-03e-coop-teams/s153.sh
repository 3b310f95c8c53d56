set -uo pipefail
# Run 153 (thirty-third session), the tree with the planner taking the cooperative-matrix
# subgroup kernel (wgsl/vector_coop_teams.wgsl) for more than 4 query vectors a KV head at d128
# from 65536 keys: sdpa check, its test in tests/decode.rs; 64/8 heads (8 query vectors a KV
# head) and 32/2 (16) by default, without it (decode_ct=0) and with it everywhere (decode_ct=1),
# 4 copies of K and V, beside PyTorch's CUDA graph of the same calls.
o=/tmp/s153; mkdir -p $o /tmp/t153
r="bash .device/on-device.sh"
SECONDS=0
gunzip -c .device/t/decode.gz > /tmp/t153/decode && chmod +x /tmp/t153/decode
timeout 150 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r /tmp/t153/decode cooperative_matrix_teams --test-threads=1 --nocapture > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
echo "tests at $SECONDS s"
long="16384,32768,65536,131072"
for h in 64,8 32,2; do
for v in none decode_ct=0 decode_ct=1; do
  WGPU_SDPA_TUNE=$v timeout 120 $r .device/sdpa bench --decode --heads $h --len $long --fused-only --kv-copies 4 > $o/h${h/,/-}-$v.txt 2>&1
done
done
echo "sweeps at $SECONDS s"
timeout 200 python3 .device/torch_decode_cold.py --graph --copies 4 --heads 64 8 --lens ${long//,/ } > $o/torch-graph-g8-c4.txt 2>&1
timeout 200 python3 .device/torch_decode_cold.py --graph --copies 4 --heads 32 2 --lens ${long//,/ } > $o/torch-graph-g16-c4.txt 2>&1
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s153.tgz s153
cd $o
echo "check: $(tail -2 check.txt | tr '\n' ' ')"; grep -E "FAIL|ERROR" check.txt | head -3
echo "decode test: $(grep 'test result' test-decode.txt) $(tail -1 test-decode.txt)"; grep -E "panicked|failed" test-decode.txt | head -5
for f in h*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f/p%.1f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
for f in torch-graph-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%.1f ", $1+0, $3*1000}')"; done
