set -uo pipefail
# Run 165 (thirty-fifth session) on ea848d2: 16 teams a workgroup and splits aiming for one
# workgroup an SM (knobs) against the default on the other shapes the subgroup kernel takes.
o=/tmp/s165; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
lens="4096,8192,16384,32768,65536,131072"
W16="decode_teams=16,decode_wgs=132,decode_os_parts=1"
for rep in 1 2; do
for s in "h32-32:--heads 32,32" "d64:--hdim 64" "f32:--dtype f32" "b4:--batch 4 --len 4096,8192,16384,32768,65536" "h32-8:--heads 32,8"; do
  name=${s%%:*}; args=${s#*:}
  for k in none $W16; do
    if [ $k = none ]; then t=""; tag=def; else t=$k; tag=w16; fi
    WGPU_SDPA_TUNE=$t timeout 120 $r .device/sdpa bench --decode --len $lens $args --fused-only --kv-copies 4 > $o/$name-$tag-$rep.txt 2>&1
  done
done
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s165.tgz s165
cd $o
for f in *.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4*($8~/f32/?2:1)*$4/$4; printf "%s:p%.1f ", $3+0, b/$22/1e3}')"; done
for f in *-w16-1.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | head -1 | awk -F, '{print $23}' | cut -c1-140)"; done
