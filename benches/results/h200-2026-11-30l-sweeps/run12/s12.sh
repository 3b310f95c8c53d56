set -uo pipefail
# Sweep 12: registers of the cooperative-matrix decode kernel (132 in sweep 11: one 256-thread
# workgroup an SM): each thread's share of the row sums added once at the end (default now),
# and Q reloaded every tile from workgroup memory instead of held (knob decode_qsh=1, 33 KB).
t=/tmp/s12; mkdir -p $t
r="bash .device/on-device.sh"
for k in none decode_qsh=1; do
  WGPU_SDPA_TUNE=$k $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > $t/ps-$k.txt 2>&1
  WGPU_SDPA_TUNE=$k $r .device/sdpa check --filter vector > $t/check-$k.txt 2>&1; echo "exit $?" >> $t/check-$k.txt
done
d="--decode --len 4096,16384,32768,131072"
for i in 1 2; do
  for k in none decode_qsh=1 decode_coop=0; do WGPU_SDPA_TUNE=$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1; done
done
tar -C /tmp -czf $OUT/s12.tgz s12
cd $t; for f in check-*; do echo "$f: $(tail -2 $f | head -1)"; done
for f in ps-*; do echo "$f: $(grep -i -E 'regist' $f | head -1 | tr -s ' ')"; done
for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $18, $11}')"; done
