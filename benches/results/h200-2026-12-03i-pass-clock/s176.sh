set -uo pipefail
# Run 176 (thirty-seventh session): examples/read_bandwidth.rs's two clocks on a kernel that
# only reads K and V, as it is, after ~25 KB of instructions run once (the decode kernel's code
# size), and followed by 2 KB of stores a workgroup (the decode split results' bytes).
o=/tmp/s176; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
unx() { xz -dc "$1" > "$2" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$1" "$2"; chmod +x "$2"; }
unx .device/t/read_bandwidth.xz /tmp/read_bandwidth
for rep in 1 2; do
  timeout 120 $r /tmp/read_bandwidth 4096 16384 131072 > $o/read-$rep.txt 2>&1
  echo "rep $rep at $SECONDS s"
done
tar -C /tmp -czf $OUT/s176.tgz s176
cd $o
for f in read-*.txt; do echo "== $f"; grep -E "pass-each|one-pass" $f | grep -v held; done
