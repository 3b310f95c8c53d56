set -uo pipefail
# Run 136 (thirty-first session): the short caches' rule gated by the plan's merge (d0a6a48):
# sdpa check and tests/decode.rs; d256 at short caches with the new default (reduce pass, old
# splits), decode_short=2 (reduce pass, short splits), decode_in_pass=1 (in pass, short splits)
# and decode_in_pass=1,decode_short=0 (in pass, old splits); d128 through the reduce pass
# (decode_in_pass=0) with and without the rule; 4 copies of K and V, 2 rounds interleaved. Then
# the floor of a call: read_bandwidth's back-to-back empty dispatches beside PyTorch's one-element
# add (loop, CUDA graph), PyTorch's decode kernels by the profiler, and our decode sweep cold.
o=/tmp/s136; mkdir -p $o /tmp/t136
r="bash .device/on-device.sh"
SECONDS=0
gunzip -c .device/t/decode.gz > /tmp/t136/decode && chmod +x /tmp/t136/decode
timeout 150 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r /tmp/t136/decode --test-threads=1 > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
echo "tests at $SECONDS s"
declare -A K=([def]="" [s2]="decode_short=2" [ip]="decode_in_pass=1" [ip0]="decode_in_pass=1,decode_short=0" [rp]="decode_in_pass=0" [rp2]="decode_in_pass=0,decode_short=2")
for i in 1 2; do
  for n in def s2 ip ip0; do
    WGPU_SDPA_TUNE="${K[$n]}" timeout 60 $r .device/sdpa bench --decode --hdim 256 --len 256,1024,2048,4096,8192 --fused-only --kv-copies 4 > $o/d256-$n-$i.txt 2>&1
  done
  for n in rp rp2; do
    WGPU_SDPA_TUNE="${K[$n]}" timeout 60 $r .device/sdpa bench --decode --len 256,1024,2048,4096,8192 --fused-only --kv-copies 4 > $o/d128-$n-$i.txt 2>&1
  done
done
echo "sweeps at $SECONDS s"
timeout 60 $r .device/read_bandwidth 16384 131072 > $o/read.txt 2>&1
all="256,1024,2048,4096,8192,16384,32768,65536,131072"
timeout 90 $r .device/sdpa bench --decode --len $all --fused-only --kv-copies 4 > $o/decode-c4.txt 2>&1
timeout 200 python3 .device/torch_decode_cold.py --floor --graph --profile --copies 4 --lens 256 1024 4096 16384 131072 > $o/torch-graph.txt 2>&1
timeout 60 python3 .device/torch_decode_cold.py --floor --copies 4 --lens 16384 > $o/torch-loop.txt 2>&1
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s136.tgz s136
cd $o
echo "check: $(tail -2 check.txt | tr '\n' ' ')"; grep FAIL check.txt | head -3
echo "decode tests: $(grep 'test result' test-decode.txt) $(tail -1 test-decode.txt)"
for f in d256-*-[12].txt d128-*-[12].txt decode-c4.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f(b%.1f) ", $3+0, b/$18/1e3, b/$20/1e3}') | $(grep -E '^ *[0-9]+, ' $f | head -1 | sed 's/.*fused_b2b[^,]*//' | awk -F, '{print $NF}' | cut -c1-90)"; done
grep -E "plan|splits" d256-def-1.txt | head -2 | cut -c1-300
cat read.txt | tail -5
grep -E "^#|^ *[0-9]+," torch-graph.txt torch-loop.txt | cut -c1-160
