// Unfused step 3: out[b, h, i, :] = P[z, i, :] · v[b, h / group, :, :] with P the f32
// probabilities of step 2. A 64 x 64 tile of the output per workgroup, 256 threads, each a
// 4 x 4 block, keys streamed in chunks of 16 (P transposed, V as is) through workgroup memory.

@group(0) @binding(3) var<storage, read> v: array<elem>;
@group(0) @binding(4) var<storage, read_write> out: array<elem>;
@group(0) @binding(6) var<storage, read> probs: array<f32>;

const TILE: u32 = 64u;
const KK: u32 = 16u;
const THREADS: u32 = 256u;

var<workgroup> p_t: array<vec4<f32>, 256>; // [KK][TILE / 4]: 4 query rows per vec4
var<workgroup> v_s: array<vec4<f32>, 256>; // [KK][TILE / 4]: 4 columns per vec4

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let z = p.head_base + wg.z;   // global (batch, head) index; wg.z indexes this chunk's scores
    let b = z / p.q_heads;
    let h = z % p.q_heads;
    let row0 = wg.y * TILE;
    let col0 = wg.x * TILE;
    let p_head = wg.z * p.q_len * p.kv_len;
    let v_head = row_base(p.v, b, h / p.group, 0u);
    let tr = t / 16u;
    let tc = t % 16u;

    var acc0 = vec4<f32>();
    var acc1 = vec4<f32>();
    var acc2 = vec4<f32>();
    var acc3 = vec4<f32>();
    for (var j0 = 0u; j0 < p.kv_len; j0 += KK) {
        for (var n = 0u; n < 4u; n++) {
            let e = t + n * THREADS;
            // P: 64 rows x 16 keys, consecutive threads along the keys of a row.
            let r = e / KK;
            let jj = e % KK;
            var pv = 0.0;
            if (row0 + r < p.q_len && j0 + jj < p.kv_len) {
                pv = probs[p_head + (row0 + r) * p.kv_len + j0 + jj];
            }
            p_t[jj * 16u + r / 4u][r % 4u] = pv;
            // V: 16 keys x 64 columns, consecutive threads along the columns.
            let vj = e / TILE;
            let c = e % TILE;
            var vv = 0.0;
            if (j0 + vj < p.kv_len && col0 + c < p.v_head_dim) {
                vv = f32(v[v_head + (j0 + vj) * p.v.w + col0 + c]);
            }
            v_s[vj * 16u + c / 4u][c % 4u] = vv;
        }
        workgroupBarrier();
        for (var jj = 0u; jj < KK; jj++) {
            let a = p_t[jj * 16u + tr];
            let c = v_s[jj * 16u + tc];
            acc0 += a.x * c;
            acc1 += a.y * c;
            acc2 += a.z * c;
            acc3 += a.w * c;
        }
        workgroupBarrier();
    }

    let out_head = row_base(p.out, b, h, 0u);
    store_row(out_head, row0 + tr * 4u, col0 + tc * 4u, acc0);
    store_row(out_head, row0 + tr * 4u + 1u, col0 + tc * 4u, acc1);
    store_row(out_head, row0 + tr * 4u + 2u, col0 + tc * 4u, acc2);
    store_row(out_head, row0 + tr * 4u + 3u, col0 + tc * 4u, acc3);
}

fn store_row(head: u32, row: u32, col: u32, o: vec4<f32>) {
    if (row >= p.q_len) {
        return;
    }
    for (var c = 0u; c < 4u; c++) {
        if (col + c < p.v_head_dim) {
            out[head + row * p.out.w + col + c] = elem(o[c]);
        }
    }
}
