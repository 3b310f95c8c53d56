set -uo pipefail
# Run 178 (thirty-seventh session): as run 176, the long code at 1024, 256 and 64 steps before the
# reads and 1024 after them (examples/read_bandwidth.rs), to see how the per-pass clock charges
# a kernel for its code.
o=/tmp/s178; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
unx() { xz -dc "$1" > "$2" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$1" "$2"; chmod +x "$2"; }
unx .device/t/read_bandwidth.xz /tmp/read_bandwidth
for rep in 1 2; do
  timeout 120 $r /tmp/read_bandwidth 4096 16384 131072 > $o/read-$rep.txt 2>&1
  echo "rep $rep at $SECONDS s"
done
tar -C /tmp -czf $OUT/s178.tgz s178
cd $o
for f in read-*.txt; do echo "== $f"; grep -E "pass-each|one-pass" $f | grep -v held; done
