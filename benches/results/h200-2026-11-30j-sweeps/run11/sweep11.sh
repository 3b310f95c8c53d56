set -uo pipefail
o=/tmp/s11; mkdir -p $o
r="bash .device/on-device.sh"
P=".device/pipeline_stats"
for d in 64 80 112 128; do for k in 0 1; do
  echo "d$d coop_f16word=$k: $(WGPU_SDPA_TUNE=coop_f16word=$k $r $P --heads 32,32 --q-len 4096 --hdim $d --dtype f16 2>&1 | grep -h 'Register Count\|Binary Size' | head -2 | awk '{print $1, $2, $3}' | tr '\n' ' ')" >> $o/stats.txt
done; done
cat $o/stats.txt
tar -C /tmp -czf $OUT/s11.tgz s11
