set -uo pipefail
o=/tmp/s3; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"
P=".device/pipeline_stats"
for k in coop_bq=160,coop_bk=32 coop_bq=144,coop_bk=32; do
  echo "d64 $k: $(WGPU_SDPA_TUNE=$k $r $P --heads 32,32 --q-len 4096 --hdim 64 --dtype f16 2>&1 | grep -h 'Register Count\|^plan' | head -2 | cut -c1-120 | tr '\n' ' ')" >> $o/regs.txt
done
cat $o/regs.txt
WGPU_SDPA_TUNE=coop_bq=160,coop_bk=32 $new check --filter "coop" > $o/check-160.txt 2>&1
sh="--fused-only --dtype f16 --len 4096 --hdim 64"
for i in 1 2; do
  $new bench $sh > $o/new$i.txt 2>&1
  WGPU_SDPA_TUNE=coop_bq=160,coop_bk=32 $new bench $sh > $o/b160_$i.txt 2>&1
  WGPU_SDPA_TUNE=coop_bq=144,coop_bk=32 $new bench $sh > $o/b144_$i.txt 2>&1
done
WGPU_SDPA_TUNE=coop_bq=160,coop_bk=32 $new bench --fused-only --dtype f16 --len 1024,2048,8192 --hdim 64 > $o/b160_lens.txt 2>&1
$new bench --fused-only --dtype f16 --len 1024,2048,8192 --hdim 64 > $o/new_lens.txt 2>&1
python3 .device/torch_sdpa_bench.py --dtype float16 --hdim 64 --lens 4096 > $o/torch.txt 2>&1
tar -C /tmp -czf $OUT/s3.tgz s3
cd $o; tail -n 1 check-*.txt
for f in new* b1*; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s:%s ", $2,$4,$11}')"; done
grep -v "^#" torch.txt
