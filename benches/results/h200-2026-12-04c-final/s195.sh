set -uo pipefail
# Run 195 (forty-first session): the cooperative-matrix subgroup decode kernel (more than 4
# query vectors a KV head from 16384 keys) with its splits merged in its own pass
# (wgsl/split_merge_in_pass.wgsl, the default now on Vulkan with @coherent storage) against the
# reduce pass (decode_in_pass=0), interleaved; tests/decode.rs and sdpa check on the tree.
o=/tmp/s195; mkdir -p $o /tmp/t195
r="bash .device/on-device.sh"
SECONDS=0
unx() { xz -dc "$1" > "$2" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$1" "$2"; chmod +x "$2"; }
unx .device/t/decode.xz /tmp/t195/decode
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 240 $r /tmp/t195/decode --nocapture > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
echo "decode: $(grep 'test result' $o/test-decode.txt | tail -1) $(tail -1 $o/test-decode.txt) at $SECONDS s"
grep "cooperative-matrix subgroup decode kernel:" $o/test-decode.txt
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
echo "check: $(tail -2 $o/check.txt | tr '\n' ' ') at $SECONDS s"
for i in 1 2 3; do
  for v in merged reduce; do
    if [ $v = reduce ]; then export WGPU_SDPA_TUNE=decode_in_pass=0; else unset WGPU_SDPA_TUNE; fi
    timeout 60 $r .device/sdpa bench --decode --heads 64,8 --len 16384,32768,65536,131072 > $o/h64-$v-$i.txt 2>&1
    timeout 60 $r .device/sdpa bench --decode --heads 32,2 --len 16384,65536,131072 > $o/h32x2-$v-$i.txt 2>&1
    timeout 60 $r .device/sdpa bench --decode --heads 64,8 --hdim 64 --len 16384,65536 > $o/d64-$v-$i.txt 2>&1
  done
done
unset WGPU_SDPA_TUNE
for i in 1 2 3; do timeout 40 $r .device/sdpa bench --decode --len 16384,131072 > $o/protocol-$i.txt 2>&1; done
timeout 100 python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 64 8 --lens 16384 32768 65536 131072 > $o/h64-torch.txt 2>&1
timeout 100 python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 2 --lens 16384 65536 131072 > $o/h32x2-torch.txt 2>&1
timeout 100 python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 64 --heads 64 8 --lens 16384 65536 > $o/d64-torch.txt 2>&1
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s195.tgz s195
cd $o
for f in h64-*-?.txt h32x2-*-?.txt d64-*-?.txt protocol-*.txt; do echo "$f call/1pass us: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f/%.1f ", $3+0, b/$18/1e3, b/$22/1e3}') $(grep -E '^ *[0-9]+, ' $f | head -1 | awk -F, '{print $23}' | grep -o 'merged_in_pass' )"; done
for n in h64 h32x2 d64; do echo "$n torch us: $(grep -E '^ *[0-9]+, ' $n-torch.txt | awk -F, '{printf "%s:%.1f ", $3, $11*1000}')"; done
