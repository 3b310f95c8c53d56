// The first pass of the split cooperative kernel (f32 tensors on f16 fragments,
// wgsl/coop_split_f32.wgsl): the largest magnitude of each (tensor, batch, head), as CHUNKS
// partial maxima over ranges of its rows, one workgroup each. Slots: Q's b * q_heads + h, then
// K's and V's b * kv_heads + h after them; grid (CHUNKS, slots). No atomics and nothing to clear
// first: every slot's CHUNKS values are written each run, from `split_maxima_at()` in the
// scratch (wgsl/split_maxima.wgsl, after this).

@group(0) @binding(1) var<storage, read> q: array<elem>;
@group(0) @binding(2) var<storage, read> k: array<elem>;
@group(0) @binding(3) var<storage, read> v: array<elem>;
@group(0) @binding(6) var<storage, read_write> chunk_max: array<f32>;

override WG: u32 = 256u;
override CHUNKS: u32 = 16u;

var<workgroup> red: array<f32, WG>;

@compute @workgroup_size(WG)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let slot = wg.y;
    let q_slots = p.batch * p.q_heads;
    let kv_slots = p.batch * p.kv_heads;
    var tensor = 0u; // 0 Q, 1 K, 2 V
    var index = slot;
    if (slot >= q_slots + kv_slots) {
        tensor = 2u;
        index = slot - q_slots - kv_slots;
    } else if (slot >= q_slots) {
        tensor = 1u;
        index = slot - q_slots;
    }
    let heads = select(p.kv_heads, p.q_heads, tensor == 0u);
    let b = index / heads;
    let h = index % heads;
    let len = select(p.kv_len, p.q_len, tensor == 0u);
    let dim = select(p.head_dim, p.v_head_dim, tensor == 2u);
    var l = p.q;
    if (tensor == 1u) {
        l = p.k;
    } else if (tensor == 2u) {
        l = p.v;
    }
    let rows = (len + CHUNKS - 1u) / CHUNKS;
    let r0 = min(wg.x * rows, len);
    let r1 = min(r0 + rows, len);
    let base = row_base(l, b, h, r0);
    var m = 0.0;
    for (var e = t; e < (r1 - r0) * dim; e += WG) {
        let at = base + (e / dim) * l.w + e % dim;
        var x: f32;
        if (tensor == 0u) {
            x = f32(q[at]);
        } else if (tensor == 1u) {
            x = f32(k[at]);
        } else {
            x = f32(v[at]);
        }
        m = max(m, abs(x));
    }
    red[t] = m;
    for (var s = WG / 2u; s > 0u; s /= 2u) {
        workgroupBarrier();
        if (t < s) {
            red[t] = max(red[t], red[t + s]);
        }
    }
    if (t == 0u) {
        chunk_max[split_maxima_at() + slot * CHUNKS + wg.x] = red[0];
    }
}
