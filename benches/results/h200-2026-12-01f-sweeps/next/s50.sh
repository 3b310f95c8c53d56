set -uo pipefail
# Run 50 (not run: no device time was left after run 49). On the commit that added it or later:
# the in-pass merge with groups of 8 consecutive splits (decode_merge_parts=8: 3 rounds of 12
# loads a thread at 33 splits, against 5 rounds of 6 for the default groups of 4), d128 and d256,
# side by side with the default, then the decode sweep beside PyTorch's.
o=/tmp/s50; mkdir -p $o
r="bash .device/on-device.sh"
k="--kv-len 4096,8192,16384,65536,131072 --fused-only"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 $k"
d256="--dtype f16 --hdim 256 --heads 32,8 --len 1 $k"
for i in 1 2 3; do
  $r .device/sdpa bench $d128 > $o/d128-default-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_merge_parts=8 $r .device/sdpa bench $d128 > $o/d128-parts8-$i.txt 2>&1
done
for v in decode_in_pass=1 decode_in_pass=1,decode_merge_parts=8 decode_in_pass=0; do
  WGPU_SDPA_TUNE=$v $r .device/sdpa bench $d256 > $o/d256-$v.txt 2>&1
done
{ for v in decode_merge_parts=4 decode_merge_parts=8; do echo "### $v"; WGPU_SDPA_TUNE=$v $r .device/pipeline_stats --kv-len 16384 --heads 32,8 --q-len 1 --hdim 128 --dtype f16; done; } > $o/registers.txt 2>&1
timeout 200 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
lens=256,1024,2048,4096,8192,16384,32768,65536,131072
$r .device/sdpa bench --decode --len $lens --json $o/decode.json > $o/decode.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 \
  --lens 256 1024 2048 4096 8192 16384 32768 65536 131072 > $o/torch-decode.txt 2>&1
tar -C /tmp -czf $OUT/s50.tgz s50
cd $o; tail -2 check.txt; grep "CS: Register" registers.txt | awk '{print $4}' | tr '\n' ' '; echo
for f in d*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
grep -E "^ *[0-9]" torch-decode.txt | awk -F, '{print $3, $11}' | tr '\n' ' '; echo
