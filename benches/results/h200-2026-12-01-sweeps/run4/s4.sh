set -uo pipefail
# Sweep 4: the subgroup decode kernel: PF 2 (next block after this one), teams per workgroup, splits.
t=/tmp/s4; mkdir -p $t
r="bash .device/on-device.sh"
for k in decode_sg=1,decode_sgpf=2 decode_sg=1,decode_teams=4 decode_sg=1,decode_teams=4,decode_sgpf=2; do
  echo "### $k"; WGPU_SDPA_TUNE=$k $r .device/pipeline_stats --heads 32,8 --q-len 1 --dtype f16 --kv-len 16384 --hdim 128 2>&1 | grep "CS: Register"
done > $t/registers.txt 2>&1
WGPU_SDPA_TUNE=decode_sg=1,decode_sgpf=2 $r .device/sdpa check --filter vector > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
d="--decode --len 4096,8192,16384,32768,131072 --fused-only"
for i in 1 2; do
  for k in base decode_sg=1 decode_sg=1,decode_sgpf=2 decode_sg=1,decode_teams=4 decode_sg=1,decode_teams=4,decode_wgs=528 decode_sg=1,decode_teams=4,decode_sgpf=2,decode_wgs=528 decode_sg=1,decode_teams=2,decode_wgs=1056 decode_sg=1,decode_wgs=396 decode_sg=1,decode_ablate=1 decode_sg=1,decode_ablate=32; do
    WGPU_SDPA_TUNE=$k,decode_coop=0 $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1
  done
done
$r .device/read_bandwidth 16384 131072 > $t/read_bandwidth.txt 2>&1
tar -C /tmp -czf $OUT/s4.tgz s4
cd $t; tail -1 check.txt; cat registers.txt read_bandwidth.txt
for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s:%s ", $3, $11, $18}')"; done
