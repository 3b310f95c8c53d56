set -uo pipefail
# Run 46 (eighteenth session). sdpa = the split partial results in 16-byte quads for the
# subgroup kernel and the reduce pass (wgsl/partial_quads.wgsl, split_combine's loads);
# sdpa-prev = 1b11a90 (floats). Side by side: the default (reduce pass) and the in-pass merge.
o=/tmp/s46; mkdir -p $o
r="bash .device/on-device.sh"
k="--kv-len 4096,16384,65536,131072 --fused-only"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 $k"
d256="--dtype f16 --hdim 256 --heads 32,8 --len 1 $k"
mha="--dtype f16 --hdim 128 --heads 32,32 --len 1 $k"
for i in 1 2 3; do
  for b in sdpa sdpa-prev; do
    $r .device/$b bench $d128 > $o/$b-d128-$i.txt 2>&1
    WGPU_SDPA_TUNE=decode_in_pass=1 $r .device/$b bench $d128 > $o/$b-d128-inpass-$i.txt 2>&1
  done
done
for b in sdpa sdpa-prev; do
  WGPU_SDPA_TUNE=decode_in_pass=1,decode_merge_parts=8 $r .device/$b bench $d128 > $o/$b-d128-inpass8.txt 2>&1
  $r .device/$b bench $d256 > $o/$b-d256.txt 2>&1
  WGPU_SDPA_TUNE=decode_in_pass=1 $r .device/$b bench $d256 > $o/$b-d256-inpass.txt 2>&1
  $r .device/$b bench $mha > $o/$b-mha.txt 2>&1
  WGPU_SDPA_TUNE=decode_in_pass=1 $r .device/$b bench $mha > $o/$b-mha-inpass.txt 2>&1
done
{ for sh in "--heads 32,8 --q-len 1 --hdim 128 --dtype f16" "--heads 32,8 --q-len 1 --hdim 256 --dtype f16"; do echo "### $sh kv 16384"; $r .device/pipeline_stats --kv-len 16384 $sh; WGPU_SDPA_TUNE=decode_in_pass=1 $r .device/pipeline_stats --kv-len 16384 $sh; done; } > $o/registers.txt 2>&1
timeout 200 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
for n in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r .device/t/$n --test-threads=1 > $o/test-$n.txt 2>&1; echo "exit $?" >> $o/test-$n.txt
done
tar -C /tmp -czf $OUT/s46.tgz s46
cd $o; tail -2 check.txt; for n in decode numerics; do echo "$n: $(grep 'test result' test-$n.txt) $(tail -1 test-$n.txt)"; done
grep "CS: Register" registers.txt | awk '{print $4}' | tr '\n' ' '; echo
for f in sdpa*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
