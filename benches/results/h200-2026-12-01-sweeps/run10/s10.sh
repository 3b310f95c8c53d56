set -uo pipefail
# Sweep 10: the combine's loads issued together (split index clamped, the empty part picked by a select instead of a branch), in the subgroup kernel's last workgroup and in the reduce pass.
t=/tmp/s10; mkdir -p $t
r="bash .device/on-device.sh"
$r .device/sdpa check --filter vector > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
d="--decode --len 1024,4096,8192,16384,32768,131072 --fused-only"
for i in 1 2; do
  for k in base decode_last=0 decode_ablate=64 decode_sg=0; do
    WGPU_SDPA_TUNE=$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1
  done
  $r .device/sdpa-old bench $d > $t/old-$i.txt 2>&1
done
tar -C /tmp -czf $OUT/s10.tgz s10
cd $t; tail -n 2 check.txt
for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s:%s ", $3, $11, $18}')"; done
