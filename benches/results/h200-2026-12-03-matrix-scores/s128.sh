set -uo pipefail
# Run 128 (twenty-ninth session): the final tree (bb4b915: the passthrough SPIR-V entry point's
# workgroup size from the specialised module; kernels as 9da6686): sdpa check,
# tests/tuned_variants.rs (its spirv_all=1 set sends every kernel through that path), then issue
# #5's protocol: the decode sweep beside PyTorch in the same command.
o=/tmp/s128; mkdir -p $o /tmp/t128
r="bash .device/on-device.sh"
SECONDS=0
gunzip -c .device/t/tuned_variants.gz > /tmp/t128/tuned_variants && chmod +x /tmp/t128/tuned_variants
timeout 150 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
echo "check at $SECONDS s"
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 240 $r /tmp/t128/tuned_variants --test-threads=1 --nocapture > $o/test-tuned_variants.txt 2>&1; echo "exit $?" >> $o/test-tuned_variants.txt
echo "tuned at $SECONDS s"
lens="256,1024,2048,4096,8192,16384,32768,65536,131072"
$r .device/sdpa bench --decode --len $lens --json $o/decode.json > $o/decode.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens ${lens//,/ } > $o/torch-decode.txt 2>&1
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s128.tgz s128
cd $o
echo "check: $(tail -2 check.txt | tr '\n' ' ')"
echo "tuned: $(grep 'test result' test-tuned_variants.txt | tr '\n' ' ') $(tail -1 test-tuned_variants.txt)"
grep -E '^ *[0-9]+, ' decode.txt | awk -F, '{printf "%s:%s/%s/%s ", $3, $10, $11, $18}'; echo
tail -9 torch-decode.txt | awk -F, '{printf "%s:%s ", $3, $11}'; echo
