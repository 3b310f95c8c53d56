set -uo pipefail
# The subgroup kernel for more than 4 query vectors a KV head (workgroups of 4; 5-8 against up to
# 4096 keys stay on the cooperative-matrix kernel): correctness, and q_len 2/4/8 and GQA 8 against
# the session's start (ef4f0b0, .device/sdpa-old) and against this binary's kernels before it (decode_sg=0).
o=/tmp/n-after2; mkdir -p $o
r="bash .device/on-device.sh"
timeout 240 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
for n in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/$n --test-threads=1 > $o/test-$n.txt 2>&1; echo "exit $?" >> $o/test-$n.txt
done
q="--dtype f16 --hdim 128 --heads 32,8 --len 2,4,8 --kv-len 1024,4096,16384,65536 --fused-only"
g8="--dtype f16 --hdim 128 --heads 32,4 --len 1 --kv-len 1024,4096,16384,65536 --fused-only"
for i in 1 2; do
  for s in q g8; do
    $r .device/sdpa bench ${!s} > $o/$s-new-$i.txt 2>&1
    WGPU_SDPA_TUNE=decode_sg=0 $r .device/sdpa bench ${!s} > $o/$s-sg0-$i.txt 2>&1
    $r .device/sdpa-old bench ${!s} > $o/$s-old-$i.txt 2>&1
  done
done
$r .device/sdpa bench --decode --len 1024,16384,131072 --fused-only > $o/decode.txt 2>&1
tar -C /tmp -czf $OUT/n-after2.tgz n-after2
tail -2 $o/check.txt; for n in decode numerics; do echo "$n: $(grep 'test result' $o/test-$n.txt) $(tail -1 $o/test-$n.txt)"; done
cd $o; for f in q-*.txt g8-*.txt decode.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s/%s:%s/%s ", $2, $3, $11, $18}')"; done
