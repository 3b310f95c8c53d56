set -uo pipefail
# Run 74: the in-pass merge spread over the last workgroup and its helpers (decode_helpers=1, 3,
# 7: parts of the columns merged by the workgroups that counted just before the last) against
# none (0) and sdpa-prev (a45d81b): checks with each, d128 interleaved, other shapes.
o=/tmp/s74; mkdir -p $o
r="bash .device/on-device.sh"
for h in 7 3; do
  WGPU_SDPA_TUNE=decode_helpers=$h timeout 200 $r .device/sdpa check > $o/check-h$h.txt 2>&1; echo "check exit $?" >> $o/check-h$h.txt
  WGPU_SDPA_TUNE=decode_helpers=$h WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r .device/t/numerics --test-threads=1 > $o/test-numerics-h$h.txt 2>&1; echo "exit $?" >> $o/test-numerics-h$h.txt
  WGPU_SDPA_TUNE=decode_helpers=$h WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r .device/t/decode --test-threads=1 > $o/test-decode-h$h.txt 2>&1; echo "exit $?" >> $o/test-decode-h$h.txt
done
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,8192,16384,65536,131072 --fused-only"
for i in 1 2 3; do
  $r .device/sdpa-prev bench $d128 > $o/prev-$i.txt 2>&1
  for h in 0 1 3 7; do
    WGPU_SDPA_TUNE=decode_helpers=$h $r .device/sdpa bench $d128 > $o/h$h-$i.txt 2>&1
  done
done
for shape in "d64:--dtype f16 --hdim 64 --heads 32,8 --len 1" "mha:--dtype f16 --hdim 128 --heads 32,32 --len 1" "q2:--dtype f16 --hdim 128 --heads 32,8 --len 2" "f32:--dtype f32 --hdim 128 --heads 32,8 --len 1"; do
  name=${shape%%:*}; args=${shape#*:}
  $r .device/sdpa-prev bench $args --kv-len 4096,16384,131072 --fused-only > $o/$name-prev.txt 2>&1
  for h in 3 7; do
    WGPU_SDPA_TUNE=decode_helpers=$h $r .device/sdpa bench $args --kv-len 4096,16384,131072 --fused-only > $o/$name-h$h.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s74.tgz s74
pushd $o > /dev/null
for f in check-*.txt; do echo "$f: $(tail -2 $f | tr '\n' ' ')"; done
for f in test-*.txt; do echo "$f: $(grep 'test result' $f) $(tail -1 $f)"; done
for f in prev-*.txt h*.txt d64*.txt mha*.txt q2*.txt f32*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
popd > /dev/null
