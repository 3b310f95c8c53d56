set -uo pipefail
# Sweep 3: the subgroup decode kernel (wgsl/vector_subgroup.wgsl, knob decode_sg=1), PF 1 and 0, against the planner's.
t=/tmp/s3; mkdir -p $t
r="bash .device/on-device.sh"
for k in decode_sg=1 decode_sg=1,decode_sgpf=0; do
  for h in 128 64; do echo "### $k d$h"; WGPU_SDPA_TUNE=$k $r .device/pipeline_stats --heads 32,8 --q-len 1 --dtype f16 --kv-len 16384 --hdim $h 2>&1 | grep "CS: Register"; done
done > $t/registers.txt 2>&1
WGPU_SDPA_TUNE=decode_sg=1 $r .device/sdpa check --filter vector > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
WGPU_SDPA_TUNE=decode_sg=1,decode_sgpf=0 $r .device/sdpa check --filter vector > $t/check-pf0.txt 2>&1; echo "exit $?" >> $t/check-pf0.txt
d="--decode --len 1024,4096,8192,16384,32768,65536,131072 --fused-only"
for i in 1 2; do
  for k in base decode_sg=1 decode_sg=1,decode_sgpf=0 decode_sg=1,decode_wgs=528 decode_sg=1,decode_wgs=132; do
    WGPU_SDPA_TUNE=$k,decode_coop=0 $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1
  done
done
for k in base decode_sg=1; do WGPU_SDPA_TUNE=$k,decode_coop=0 $r .device/sdpa bench --dtype f16 --hdim 64 --heads 32,8 --len 1 --kv-len 4096,16384,65536 --fused-only > $t/d64-$k.txt 2>&1; done
tar -C /tmp -czf $OUT/s3.tgz s3
cd $t; tail -1 check.txt; tail -1 check-pf0.txt; grep -c FAIL check.txt check-pf0.txt; cat registers.txt
for f in *-[12].txt d64-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s:%s ", $3, $11, $18}')"; done
