set -uo pipefail
o=/tmp/s1; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"
P=".device/pipeline_stats"
for k in coop_nopf=0 coop_nopf=1 coop_nopf=2; do
  echo "d64 $k: $(WGPU_SDPA_TUNE=$k $r $P --heads 32,32 --q-len 4096 --hdim 64 --dtype f16 2>&1 | grep -h 'Register Count\|^plan' | head -2 | cut -c1-120 | tr '\n' ' ')" >> $o/regs.txt
done
for k in coop_nopf=0 coop_bq=64,coop_bk=32 coop_bq=64,coop_bk=32,coop_spad=8; do
  echo "d128 $k: $(WGPU_SDPA_TUNE=$k $r $P --heads 32,32 --q-len 4096 --hdim 128 --dtype f16 2>&1 | grep -h 'Register Count\|^plan' | head -2 | cut -c1-120 | tr '\n' ' ')" >> $o/regs.txt
done
cat $o/regs.txt
WGPU_SDPA_TUNE=coop_nopf=1 $new check --filter "coop" > $o/check-nopf1.txt 2>&1
WGPU_SDPA_TUNE=coop_nopf=2 $new check --filter "coop" > $o/check-nopf2.txt 2>&1
sh="--fused-only --dtype f16 --len 4096"
for i in 1 2; do
  $new bench $sh --hdim 64,128 > $o/new$i.txt 2>&1
  WGPU_SDPA_TUNE=coop_nopf=1 $new bench $sh --hdim 64 > $o/nopf1_$i.txt 2>&1
  WGPU_SDPA_TUNE=coop_nopf=2 $new bench $sh --hdim 64 > $o/nopf2_$i.txt 2>&1
  WGPU_SDPA_TUNE=coop_bq=64,coop_bk=32 $new bench $sh --hdim 128 > $o/d128b64_$i.txt 2>&1
  WGPU_SDPA_TUNE=coop_bq=64,coop_bk=32,coop_spad=8 $new bench $sh --hdim 128 > $o/d128b64s8_$i.txt 2>&1
done
python3 .device/torch_sdpa_bench.py --dtype float16 --hdim 64 128 --lens 4096 > $o/torch.txt 2>&1
tar -C /tmp -czf $OUT/s1.tgz s1
cd $o; tail -n 1 check-*.txt
for f in new* nopf* d128*; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s:%s ", $4,$11}')"; done
grep -v "^#" torch.txt
