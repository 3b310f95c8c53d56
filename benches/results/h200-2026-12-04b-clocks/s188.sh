set -uo pipefail
# Run 188 (fortieth session), 0e15158's code: issue #5's protocol; the 16384-key row five times
# more; what PyTorch's device copy and read, and its SDPA, take by the loop, the CUDA graph and
# calls each alone (scripts/torch_decode_cold.py --copy / --isolated); our read-only kernel.
o=/tmp/s188; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
$r .device/sdpa info > $o/info.txt 2>&1
all="256,1024,2048,4096,8192,16384,32768,65536,131072"
timeout 100 $r .device/sdpa bench --decode --len $all --json $o/decode.json > $o/decode.txt 2>&1
timeout 100 python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens ${all//,/ } > $o/torch-decode.txt 2>&1
for i in 1 2 3 4 5; do timeout 40 $r .device/sdpa bench --decode --len 16384,32768 > $o/protocol-$i.txt 2>&1; done
timeout 60 $r .device/sdpa bench --decode --len 16384,32768,65536,131072 --kv-copies 4 > $o/copies4.txt 2>&1
echo "ours at $SECONDS s"
timeout 150 python3 .device/torch_decode_cold.py --copy --isolated --copies 1 4 --lens 16384 32768 65536 131072 > $o/torch-isolated.txt 2>&1
timeout 60 python3 .device/torch_decode_cold.py --graph --copies 1 4 --lens 16384 32768 65536 131072 > $o/torch-graph.txt 2>&1
timeout 60 python3 .device/torch_decode_cold.py --copies 1 4 --lens 16384 32768 65536 131072 > $o/torch-loop.txt 2>&1
timeout 120 $r .device/read_bandwidth 16384 131072 > $o/read_bandwidth.txt 2>&1
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s188.tgz s188
cd $o
head -30 info.txt | grep -i "adapter\|compute units\|driver"
for f in decode.txt protocol-*.txt copies4.txt; do echo "$f GB/s: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s ", $3+0, $18+0}')"; done
echo "ours per call: $(grep -E '^ *[0-9]+, ' decode.txt | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f ", $3+0, b/$18/1e3}')"
echo "ours b2b: $(grep -E '^ *[0-9]+, ' decode.txt | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f ", $3+0, b/$20/1e3}')"
echo "ours one pass: $(grep -E '^ *[0-9]+, ' decode.txt | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f ", $3+0, b/$22/1e3}')"
echo "protocol torch: $(tail -9 torch-decode.txt | awk -F, '{printf "%s:%.1f ", $3, $11*1000}')"
cat torch-isolated.txt torch-graph.txt torch-loop.txt
tail -40 read_bandwidth.txt
