set -uo pipefail
o=/tmp/s14; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"; old="$r .device/sdpa-old"
sh="--fused-only --dtype f16 --len 4096 --hdim 64,128"
WGPU_SDPA_TUNE=coop_first=1,coop_endsg=1 $new check --filter "coop" > $o/check-both.txt 2>&1
for i in 1 2; do
  $old bench $sh > $o/old$i.txt 2>&1
  $new bench $sh > $o/new$i.txt 2>&1
  WGPU_SDPA_TUNE=coop_first=1 $new bench $sh > $o/first$i.txt 2>&1
  WGPU_SDPA_TUNE=coop_endsg=1 $new bench $sh > $o/endsg$i.txt 2>&1
  WGPU_SDPA_TUNE=coop_first=1,coop_endsg=1 $new bench $sh > $o/both$i.txt 2>&1
done
python3 .device/torch_sdpa_bench.py --dtype float16 --hdim 64 128 --lens 4096 > $o/torch.txt 2>&1
tar -C /tmp -czf $OUT/s14.tgz s14
cd $o; tail -n 1 check-both.txt
for f in old* new* first* endsg* both*; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s:%s ", $4,$11}')"; done
grep -v "^#" torch.txt
