set -uo pipefail
# Run 86: the tree with K's rows in whole lines by default (decode_kl=1): the decode sweep beside
# PyTorch's SDPA in one command, then sdpa check and the decode and numerics tests.
o=/tmp/s86; mkdir -p $o
r="bash .device/on-device.sh"
lens="256,1024,2048,4096,8192,16384,32768,65536,131072"
$r .device/sdpa bench --decode --len $lens --json $o/decode.json > $o/decode.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens ${lens//,/ } > $o/torch-decode.txt 2>&1
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536,131072 --fused-only"
for i in 1 2; do
  $r .device/sdpa bench $d128 > $o/sdpa-d128-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_kl=0 $r .device/sdpa bench $d128 > $o/kl0-d128-$i.txt 2>&1
done
tar -C /tmp -czf $OUT/s86.tgz s86
timeout 100 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
for t in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 70 $r .device/t/$t --test-threads=1 > $o/test-$t.txt 2>&1; echo "exit $?" >> $o/test-$t.txt
done
tar -C /tmp -czf $OUT/s86.tgz s86
cd $o
echo "check: $(tail -2 check.txt | tr '\n' ' ')"
for t in decode numerics; do echo "$t: $(grep 'test result' test-$t.txt) $(tail -1 test-$t.txt)"; done
grep -E '^ *[0-9]+, ' decode.txt | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}'; echo
tail -12 torch-decode.txt
for f in sdpa-d128-*.txt kl0-d128-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
