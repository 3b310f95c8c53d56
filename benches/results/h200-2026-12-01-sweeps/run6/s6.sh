set -uo pipefail
# Sweep 6: the subgroup kernel's combine (last workgroup) with 8 splits' loads issued together; 16 teams a workgroup.
t=/tmp/s6; mkdir -p $t
r="bash .device/on-device.sh"
for k in decode_sg=1,decode_last=1 decode_sg=1,decode_last=1,decode_teams=16; do
  echo "### $k"; WGPU_SDPA_TUNE=$k $r .device/pipeline_stats --heads 32,8 --q-len 1 --dtype f16 --kv-len 16384 --hdim 128 2>&1 | grep "CS: Register"
done > $t/registers.txt 2>&1
for k in decode_sg=1,decode_last=1 decode_sg=1,decode_last=1,decode_teams=16; do
  WGPU_SDPA_TUNE=$k $r .device/sdpa check --filter vector > $t/check-$k.txt 2>&1; echo "exit $?" >> $t/check-$k.txt
  WGPU_SDPA_TUNE=$k WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode --test-threads=1 > $t/decode-tests-$k.txt 2>&1
done
d="--decode --len 1024,4096,8192,16384,32768,65536,131072 --fused-only"
for i in 1 2; do
  for k in base decode_sg=1,decode_last=1 decode_sg=1,decode_last=1,decode_teams=16,decode_wgs=128 decode_sg=1,decode_last=1,decode_teams=16 decode_sg=1,decode_teams=16,decode_wgs=128 decode_sg=1,decode_last=1,decode_ablate=32; do
    WGPU_SDPA_TUNE=$k,decode_coop=0 $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1
  done
done
for k in base decode_sg=1,decode_last=1 decode_sg=1,decode_last=1,decode_teams=16,decode_wgs=128; do WGPU_SDPA_TUNE=$k,decode_coop=0 $r .device/sdpa bench --dtype f16 --hdim 64 --heads 32,8 --len 1 --kv-len 4096,16384,65536 --fused-only > $t/d64-$k.txt 2>&1; WGPU_SDPA_TUNE=$k,decode_coop=0 $r .device/sdpa bench --dtype f32 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536 --fused-only > $t/f32-$k.txt 2>&1; done
tar -C /tmp -czf $OUT/s6.tgz s6
cd $t; for f in check-*; do echo "$f $(tail -1 $f)"; done; grep "test result" *-tests-*; cat registers.txt
for f in *-[12].txt d64-*.txt f32-*; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s:%s ", $3, $11, $18}')"; done
