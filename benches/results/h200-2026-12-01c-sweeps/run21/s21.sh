set -uo pipefail
# Sweep 21: the splits combined in the split pass (decode_fuse=1: tickets, per-group arrival
# counters, R combining workgroups; wgsl/split_combine.wgsl) against the reduce pass (this tree,
# knob off) and the tree before the session (sdpa-old); correctness with the knob.
t=/tmp/s21; mkdir -p $t
r="bash .device/on-device.sh"
q="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536,131072 --fused-only"
WGPU_SDPA_TUNE=decode_fuse=1 timeout 200 $r .device/sdpa check --filter vector > $t/check-fuse.txt 2>&1
WGPU_SDPA_TUNE=decode_fuse=1 WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode > $t/test-decode-fuse.txt 2>&1; echo "exit $?" >> $t/test-decode-fuse.txt
for i in 1 2 3; do
  WGPU_SDPA_TUNE=decode_fuse=1 $r .device/sdpa bench $q > $t/fuse-$i.txt 2>&1
  $r .device/sdpa bench $q > $t/reduce-$i.txt 2>&1
  $r .device/sdpa-old bench $q > $t/old-$i.txt 2>&1
done
for d in 64 256; do
  WGPU_SDPA_TUNE=decode_fuse=1 $r .device/sdpa bench --dtype f16 --hdim $d --heads 32,8 --len 1 --kv-len 16384,131072 --fused-only > $t/fuse-d$d.txt 2>&1
  $r .device/sdpa bench --dtype f16 --hdim $d --heads 32,8 --len 1 --kv-len 16384,131072 --fused-only > $t/reduce-d$d.txt 2>&1
done
WGPU_SDPA_TUNE=decode_fuse=1 $r .device/sdpa bench --dtype f16 --hdim 128 --heads 32,8 --len 2 --kv-len 16384,131072 --fused-only > $t/fuse-q2.txt 2>&1
$r .device/sdpa bench --dtype f16 --hdim 128 --heads 32,8 --len 2 --kv-len 16384,131072 --fused-only > $t/reduce-q2.txt 2>&1
tar -C /tmp -czf $OUT/s21.tgz s21
cd $t; grep -h "passed" check-fuse.txt; grep -E "test result|exit" test-decode-fuse.txt
for f in fuse-[123].txt reduce-[123].txt old-[123].txt *-d*.txt *-q2.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
