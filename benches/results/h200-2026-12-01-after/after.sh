set -uo pipefail
# After the final run: the committed tree (ad30af2; its kernels' shared pieces moved into
# wgsl/decode_chunks.wgsl and wgsl/decode_query.wgsl after final.sh ran): correctness, registers, decode sweep.
o=/tmp/n-after; mkdir -p $o
r="bash .device/on-device.sh"
timeout 240 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
for n in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/$n --test-threads=1 > $o/test-$n.txt 2>&1; echo "exit $?" >> $o/test-$n.txt
done
{ for sh in "--q-len 1 --hdim 128 --dtype f16" "--q-len 2 --hdim 128 --dtype f16" "--q-len 1 --hdim 128 --dtype f16 --kv-len 4096"; do echo "### $sh"; $r .device/pipeline_stats --heads 32,8 $sh; done; } > $o/registers.txt 2>&1
lens=256,1024,4096,8192,16384,32768,131072
for i in 1 2; do $r .device/sdpa bench --decode --len $lens --fused-only > $o/new-$i.txt 2>&1; done
tar -C /tmp -czf $OUT/n-after.tgz n-after
tail -2 $o/check.txt; for n in decode numerics; do echo "$n: $(grep 'test result' $o/test-$n.txt) $(tail -1 $o/test-$n.txt)"; done
grep "CS: Register" $o/registers.txt
cd $o; for f in new-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $18, $11}')"; done
