set -uo pipefail
o=/tmp/s1; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"; old="$r .device/sdpa-old"
sh="--fused-only --dtype f16 --len 4096"
( WGPU_SDPA_TUNE=coop_pipe=2 $new check > $o/check-pipe2.txt 2>&1; echo "check rc $?" >> $o/check-pipe2.txt ) 
$old bench $sh --hdim 64,128 > $o/old.txt 2>&1
$new bench $sh --hdim 64,128 > $o/new-default.txt 2>&1
for b in 64x32 128x32 64x16 128x16; do
  WGPU_SDPA_TUNE=coop_pipe=2 $new bench $sh --hdim 64 --blocks $b > $o/p2-d64-$b.txt 2>&1
done
for b in 128x16 64x16; do
  WGPU_SDPA_TUNE=coop_pipe=2 $new bench $sh --hdim 128 --blocks $b > $o/p2-d128-$b.txt 2>&1
done
WGPU_SDPA_TUNE=coop_pipe=2 $new bench $sh --hdim 64,128 --mask causal > $o/p2-causal.txt 2>&1
$new bench $sh --hdim 64,128 --mask causal > $o/new-causal.txt 2>&1
for k in "" "coop_pipe=2"; do
  for d in 64 128; do
  echo "[$k] d$d: $(WGPU_SDPA_TUNE=$k $r .device/pipeline_stats --heads 32,32 --q-len 4096 --kv-len 4096 --hdim $d --dtype f16 2>&1 | grep -h 'Register Count\|^plan' | head -2 | cut -c1-150 | tr '\n' ' ')" >> $o/regs.txt
  done
done
tar -C /tmp -czf $OUT/s1.tgz s1
cd $o; tail -3 check-pipe2.txt; cat regs.txt; for f in old.txt new-*.txt p2-*.txt; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s:%s ", $4,$2,$11}')"; grep -E '^ *1, ' $f | head -1 | awk -F, '{print "   ", substr($NF,1,100)}'; done
