set -uo pipefail
# Run 193 (forty-first session), 75341ae (kernels as 0e15158): sdpa check, tests/decode.rs;
# issue #5's protocol; the 16384-key row eight times more; PyTorch's device copy of 1 GiB (the
# bandwidth the target is a share of) in the same command.
o=/tmp/s193; mkdir -p $o /tmp/t193
r="bash .device/on-device.sh"
SECONDS=0
unx() { xz -dc "$1" > "$2" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$1" "$2"; chmod +x "$2"; }
unx .device/t/decode.xz /tmp/t193/decode
$r .device/sdpa info > $o/info.txt 2>&1
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 240 $r /tmp/t193/decode --nocapture > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
echo "decode: $(grep 'test result' $o/test-decode.txt | tail -1) $(tail -1 $o/test-decode.txt) at $SECONDS s"
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
echo "check: $(tail -2 $o/check.txt | tr '\n' ' ') at $SECONDS s"
all="256,1024,2048,4096,8192,16384,32768,65536,131072"
timeout 100 $r .device/sdpa bench --decode --len $all --json $o/decode.json > $o/decode.txt 2>&1
timeout 100 python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens ${all//,/ } > $o/torch-decode.txt 2>&1
for i in 1 2 3 4 5 6 7 8; do timeout 40 $r .device/sdpa bench --decode --len 16384,32768 > $o/protocol-$i.txt 2>&1; done
timeout 120 python3 .device/torch_decode_cold.py --copy --copies 1 --lens 16384 131072 > $o/torch-copy.txt 2>&1
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s193.tgz s193
cd $o
grep -i "adapter\|driver" info.txt | head -3
for f in decode.txt protocol-*.txt; do echo "$f GB/s: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s ", $3+0, $18+0}')"; done
echo "ours per call: $(grep -E '^ *[0-9]+, ' decode.txt | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f ", $3+0, b/$18/1e3}')"
echo "ours one pass: $(grep -E '^ *[0-9]+, ' decode.txt | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f ", $3+0, b/$22/1e3}')"
echo "unfused ms: $(grep -E '^ *[0-9]+, ' decode.txt | awk -F, '{printf "%s:%s ", $3+0, $10+0}')"
echo "protocol torch: $(tail -9 torch-decode.txt | awk -F, '{printf "%s:%.1f ", $3, $11*1000}')"
cat torch-copy.txt | head -40
