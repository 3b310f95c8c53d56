set -uo pipefail
# Sweep 5: the subgroup decode kernel with the last workgroup combining the splits (decode_last=1, no reduce pass), and the first block issued before the queries are staged (decode_sgpf=3).
t=/tmp/s5; mkdir -p $t
r="bash .device/on-device.sh"
for k in decode_sg=1,decode_last=1 decode_sg=1,decode_last=1,decode_sgpf=3; do
  for h in 128 64; do echo "### $k d$h"; WGPU_SDPA_TUNE=$k $r .device/pipeline_stats --heads 32,8 --q-len 1 --dtype f16 --kv-len 16384 --hdim $h 2>&1 | grep "CS: Register"; done
done > $t/registers.txt 2>&1
for k in decode_sg=1,decode_last=1 decode_sg=1,decode_last=1,decode_sgpf=3; do
  WGPU_SDPA_TUNE=$k $r .device/sdpa check --filter vector > $t/check-$k.txt 2>&1; echo "exit $?" >> $t/check-$k.txt
  WGPU_SDPA_TUNE=$k WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode --test-threads=1 > $t/decode-tests-$k.txt 2>&1
  WGPU_SDPA_TUNE=$k WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/numerics --test-threads=1 > $t/numerics-tests-$k.txt 2>&1
done
d="--decode --len 1024,4096,8192,16384,32768,65536,131072 --fused-only"
for i in 1 2; do
  for k in base decode_sg=1 decode_sg=1,decode_last=1 decode_sg=1,decode_last=1,decode_sgpf=3 decode_sg=1,decode_sgpf=3 decode_sg=1,decode_last=1,decode_wgs=528; do
    WGPU_SDPA_TUNE=$k,decode_coop=0 $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1
  done
done
for k in base decode_sg=1 decode_sg=1,decode_last=1; do WGPU_SDPA_TUNE=$k,decode_coop=0 $r .device/sdpa bench --dtype f16 --hdim 64 --heads 32,8 --len 1 --kv-len 4096,16384,65536 --fused-only > $t/d64-$k.txt 2>&1; done
tar -C /tmp -czf $OUT/s5.tgz s5
cd $t; for f in check-*; do echo "$f $(tail -1 $f)"; done; grep "test result" *-tests-*; cat registers.txt
for f in *-[12].txt d64-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s:%s ", $3, $11, $18}')"; done
