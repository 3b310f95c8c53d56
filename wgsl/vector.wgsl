// Decode ("vector") attention for short queries (q_len <= 32): flash-decoding with the query heads of a GQA group
// sharing every K and V load, written for memory bandwidth.
//
// One workgroup handles RG query vectors (query heads h of one KV head, times query rows i,
// numbered r = (h % group) * q_len + i from `qv0`) against one split of the keys,
// [split * split_len, (split + 1) * split_len), in tiles of BK keys. K and V never pass through
// workgroup memory: every thread reads its share of them from storage straight into registers, in
// "chunks" of 8 elements (16 bytes of f16: one `vec4<u32>` load; 32 bytes of f32: two), all of a
// tile's loads issued together at its start, or a tile ahead (PF).
//
// Per tile:
//   1. K: thread t reads key j = t / LPK of the tile, chunks u, u + LPK, ... (u = t % LPK, at most
//      4 chunks), and writes its partial dot product with every query vector (queries staged once
//      in workgroup memory, f32) to `red_s`. LPK threads cover one key row, so a warp reads whole
//      32-byte sectors.
//   2. One thread per (query vector, key) adds the LPK partials and applies scale and mask
//      (`masked_score`, wgsl/mask.wgsl), and turns the score into P = exp2(s - m) against the
//      workgroup's running max m of the query vector, once for every thread of step 3. The max is
//      raised lazily: only where a score passes m + RESCALE_LOG2 (P stays below 2^32 in f32, so
//      nothing is lost), which such a thread flags with the tile's largest score (a workgroup
//      atomic); the first tile of a split always does.
//   3. P V: thread t owns the 8 output columns of chunk c = t % DV8, a block of 4 query vectors
//      (rb) and every NKG-th key of the tile (key group g); it reads its keys' V chunks straight
//      from storage and P from step 2, and adds P V and P to its own output and sum. In a flagged
//      tile it first rescales them to the new max and takes P from the scores itself. Two
//      barriers a tile. (Before: each thread of step 3 kept its own online softmax per key
//      group, exp2 of each of its scores: every exponential 16 times over at head dim 128. On
//      the H200 that kernel was 2-4% faster than this one without PF; this one, 128 registers
//      with PF, is 3-5% faster from 32768 keys: BENCHMARKS.md, twelfth session.)
// With PF = 1 the next tile's K chunks are loaded a tile ahead, into registers step 1 of this tile
// has not freed yet (the host sets it where that was measured faster: f16, head dim 128, GPUs;
// on the H200, V a tile ahead as well took 169 registers, one workgroup an SM, and was slower).
// At the end the NKG key groups' outputs and sums (all against the same max) are added in
// workgroup memory (MV of each thread's 8 output vec4s a pass, as workgroup memory allows). With
// one split the kernel writes the output; with several it writes each split's unnormalised
// output, max and sum to the scratch buffer, and wgsl/vector_reduce.wgsl combines them.
//
// The chunk loads (whole 16-byte words with VEC = 1, assembled from 32-bit words otherwise) and
// the step-3 state are wgsl/decode_chunks.wgsl's, shared with wgsl/vector_subgroup.wgsl.

override RG: u32 = 4u;          // query vectors per workgroup
override BK: u32 = 64u;         // keys per tile: WG / LPK
override HEAD_DIM: u32 = 128u;
override V_HEAD_DIM: u32 = 128u;
override WG: u32 = 256u;        // threads
override LPK: u32 = 4u;         // threads per key row in step 1: ceil(HEAD_DIM / 8 / 4) or more
override NKG: u32 = 16u;        // key groups in step 3: WG / (V_HEAD_DIM / 8 * ceil(RG / 4))
override VEC: u32 = 1u;         // 1: chunks are whole vec4<u32> loads; 0: assembled from words
override ELEM_BYTES: u32 = 2u;  // size of `elem`
override RED: u32 = 2048u;      // f32 slots of red_s: max(LPK * RG * BK, 4 * NKG * NRB, 4 * WG * MV)
override VEARLY: u32 = 1u;      // 1: a tile's first V loads issued at its start; 0: in step 3
override MV: u32 = 1u;          // output vec4s a thread merges per pass: 1, 2, 4 or 8 (RED >= 4 * WG * MV)
override PF: u32 = 0u;          // 1: the next tile's K chunks loaded a tile ahead
// Profiling only (wrong results): 4 no KV tiles, 32 no K/V loads, 64 no Q loads, 128 K/V loads
// from their first 2 KiB (cache hits).
override ABLATE: u32 = 0u;
const RESCALE_LOG2: f32 = 32.0; // the running max rises only past m + this (P < 2^32, f32)

@group(0) @binding(1) var<storage, read> q: array<elem>;
@group(0) @binding(2) var<storage, read> k: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> v: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read_write> out: array<elem>;
// With several splits, each split's unnormalised outputs, max and sum go to `partial`
// (wgsl/split_partial.wgsl, after this kernel).

var<workgroup> q_s: array<vec4<f32>, RG * HEAD_DIM / 4u>;
// Step 1's partial dot products, and the final merge.
var<workgroup> red_s: array<f32, RED>;
// Step 2's P and scores, [key][block of 4 query vectors]: apart from red_s, so that step 1 of the
// next tile may write its partials while slower threads still read this tile's P in step 3.
var<workgroup> p_s: array<vec4<f32>, BK * ((RG + 3u) / 4u)>;
var<workgroup> s_s: array<vec4<f32>, BK * ((RG + 3u) / 4u)>;
// By tile parity: the running max per query vector (blocks of 4) that the tile's P is relative
// to; the tile's flag (some score passed m + RESCALE_LOG2) and largest such score per query
// vector (`ordered`). Tile n reads its parity's and writes (max) or resets the other's.
var<workgroup> m_s: array<vec4<f32>, 2u * ((RG + 3u) / 4u)>;
var<workgroup> tmax_s: array<atomic<u32>, 8u * ((RG + 3u) / 4u)>;
var<workgroup> flag_s: array<atomic<u32>, 2>;
// Per query vector (in blocks of 4): the workgroup's max and sum after the merge.
var<workgroup> fin_s: array<f32, 64>;

// The K chunks of step 1 for the tile at key `kb`: key kb + jk, chunks uk + n * LPK (n < 4).
struct KTile {
    c0: Raw,
    c1: Raw,
    c2: Raw,
    c3: Raw,
}

fn load_k_tile(k_head: u32, kb: u32, key_end: u32, jk: u32, uk: u32) -> KTile {
    let d8 = HEAD_DIM / 8u;
    let kr = k_head + (kb + jk) * p.k.w;
    let ok = jk < BK && kb + jk < key_end;
    return KTile(
        load_chunk(false, kr + 8u * uk, ok && uk < d8),
        load_chunk(false, kr + 8u * (uk + LPK), ok && uk + LPK < d8),
        load_chunk(false, kr + 8u * (uk + 2u * LPK), ok && uk + 2u * LPK < d8),
        load_chunk(false, kr + 8u * (uk + 3u * LPK), ok && uk + 3u * LPK < d8),
    );
}

// V rows of step 3: keys kb + j + n * NKG (n < 4) of the tile at key `kb`, chunk `cv`; zeros
// past the tile, past `key_end`, or where `ok` is false.
struct VTile {
    c0: Raw,
    c1: Raw,
    c2: Raw,
    c3: Raw,
}

fn load_v_tile(v_head: u32, kb: u32, j: u32, key_end: u32, cv: u32, ok: bool) -> VTile {
    let vr = v_head + 8u * cv + (kb + j) * p.v.w;
    let jj = kb + j;
    return VTile(
        load_chunk(true, vr, ok && j < BK && jj < key_end),
        load_chunk(true, vr + NKG * p.v.w, ok && j + NKG < BK && jj + NKG < key_end),
        load_chunk(true, vr + 2u * NKG * p.v.w, ok && j + 2u * NKG < BK && jj + 2u * NKG < key_end),
        load_chunk(true, vr + 3u * NKG * p.v.w, ok && j + 3u * NKG < BK && jj + 3u * NKG < key_end),
    );
}

// A score as a u32 whose order is the floats' (scores are finite); 0 lies below every score.
fn ordered(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}

fn unordered(u: u32) -> f32 {
    return bitcast<f32>(select(~u, u & 0x7fffffffu, (u & 0x80000000u) != 0u));
}

// P of key j (of the tile) for the 4 query vectors of block rb: step 2's, or exp2 of the scores
// against `m` in a flagged tile; zeros past BK.
fn probs4(rb: u32, j: u32, slow: bool, m: vec4<f32>) -> vec4<f32> {
    let nrb = (RG + 3u) / 4u;
    var x = vec4<f32>();
    if (j < BK) {
        if (slow) {
            x = exp2(s_s[j * nrb + rb] - m);
        } else {
            x = p_s[j * nrb + rb];
        }
    }
    return x;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    // The split, query group and keys (wgsl/decode_query.wgsl).
    let dg = decode_group(wg, RG);
    let kv_head = dg.kv_head;
    let b = dg.b;
    let key_end = dg.key_end;
    let d8 = HEAD_DIM / 8u;
    let dv8 = V_HEAD_DIM / 8u;
    let nrb = (RG + 3u) / 4u;
    let k_head = row_base(p.k, b, kv_head, 0u);
    let v_head = row_base(p.v, b, kv_head, 0u);

    // Step 1's role: key jk of the tile, chunks uk + n * LPK (n < 4) of its row.
    let jk = t / LPK;
    let uk = t % LPK;
    let k_thread = jk < BK;
    // Step 3's role: chunk cv of V rows, query block rb, key group g (keys g + n * NKG).
    let cv = t % dv8;
    let rb = (t / dv8) % nrb;
    let g = t / (dv8 * nrb);
    let v_thread = g < NKG;
    let keys_per_group = (BK + NKG - 1u) / NKG;

    var st = State(vec4<f32>(), vec4<f32>(), vec4<f32>(), vec4<f32>(), vec4<f32>(), vec4<f32>(),
                   vec4<f32>(), vec4<f32>(), vec4<f32>());

    // With PF the first tile's K loads, issued before the queries are staged.
    var kt_next = KTile();
    if (PF == 1u) {
        kt_next = load_k_tile(k_head, dg.key_begin, key_end, jk, uk);
    }

    // The queries, f32, zeros for vectors past the group.
    stage_queries(kv_head, dg.qv0, b, t, RG, WG);
    // The first tile's max and flags (the other parity's are reset by the first tile).
    if (t < nrb) {
        m_s[t] = vec4<f32>(FLOOR);
    }
    if (t < 4u * nrb) {
        atomicStore(&tmax_s[t], 0u);
    }
    if (t == 0u) {
        atomicStore(&flag_s[0], 0u);
    }
    workgroupBarrier(); // q_s is read by every thread from step 1 on

    var par = 0u; // the tile's parity
    let tiles_end = select(key_end, dg.key_begin, (ABLATE & 4u) != 0u);
    for (var kb = dg.key_begin; kb < tiles_end; kb += BK) {
        // This tile's K chunks and (VEARLY) first V rows: the thread's loads are issued together;
        // with PF the next tile's K instead of this one's, issued a tile earlier (zeros past the
        // split).
        var kt = kt_next;
        if (PF == 1u) {
            kt_next = load_k_tile(k_head, kb + BK, key_end, jk, uk);
        } else {
            kt = load_k_tile(k_head, kb, key_end, jk, uk);
        }
        // With VEARLY the first V rows too, to arrive during steps 1 and 2. (Not on CPU adapters:
        // there is little latency to hide, and SwiftShader, which runs a barrier as a coroutine
        // switch, took over 2 minutes to compile a kernel holding these loads across the
        // barriers, 4 seconds without.)
        var vt = VTile();
        if (VEARLY == 1u) {
            vt = load_v_tile(v_head, kb, g, key_end, cv, v_thread);
        }
        // 1. Partial dot products of this thread's K chunks with every query vector.
        {
            let x0 = unpack_chunk(kt.c0);
            let x1 = unpack_chunk(kt.c1);
            let x2 = unpack_chunk(kt.c2);
            let x3 = unpack_chunk(kt.c3);
            // Chunks past the head dim are zeros; their q index is clamped into the row.
            let c0 = min(uk, d8 - 1u);
            let c1 = min(uk + LPK, d8 - 1u);
            let c2 = min(uk + 2u * LPK, d8 - 1u);
            let c3 = min(uk + 3u * LPK, d8 - 1u);
            if (k_thread) {
                for (var r = 0u; r < RG; r++) {
                    let s = dot_chunks(r, vec4<u32>(c0, c1, c2, c3), x0, x1, x2, x3);
                    red_s[(uk * RG + r) * BK + jk] = s;
                }
            }
        }
        workgroupBarrier();
        // 2. Scores: the LPK partials of each (query vector, key), scaled and masked; P against
        // the running max, or the flag where a score passes it by RESCALE_LOG2. The other
        // parity's flags are reset for the next tile (their readers finished before the last
        // barrier).
        if (t < 4u * nrb) {
            atomicStore(&tmax_s[(par ^ 1u) * 4u * nrb + t], 0u);
        }
        if (t == 0u) {
            atomicStore(&flag_s[par ^ 1u], 0u);
        }
        for (var e = t; e < 4u * nrb * BK; e += WG) {
            let r = e / BK;
            let j = e % BK;
            let qv = query_vector(kv_head, dg.qv0, r);
            var s = EXCLUDED;
            if (qv.valid && kb + j < key_end) {
                var dot_qk = 0.0;
                for (var u = 0u; u < LPK; u++) {
                    dot_qk += red_s[u * RG * BK + e];
                }
                s = masked_score(dot_qk, b, qv.h, qv.i, kb + j);
            }
            let m = m_s[par * nrb + r / 4u][r % 4u];
            let at = j * nrb + r / 4u;
            s_s[at][r % 4u] = s;
            p_s[at][r % 4u] = exp2(s - m);
            if (s > m + RESCALE_LOG2) {
                atomicMax(&tmax_s[par * 4u * nrb + r], ordered(s));
                atomicStore(&flag_s[par], 1u);
            }
        }
        workgroupBarrier();
        // 3. P V over this thread's key group, 4 keys at a time (the first 4 already loaded with
        // VEARLY). In a flagged tile the max first rises to the largest score of each
        // flagged query vector, the state is rescaled to it and P taken from the scores. The max
        // the next tile uses goes to the other parity.
        if (v_thread) {
            let m_old = m_s[par * nrb + rb];
            var m_new = m_old;
            let slow = atomicLoad(&flag_s[par]) != 0u;
            if (slow) {
                for (var c = 0u; c < 4u; c++) {
                    let u = atomicLoad(&tmax_s[par * 4u * nrb + rb * 4u + c]);
                    if (u != 0u) {
                        m_new[c] = max(m_new[c], unordered(u));
                    }
                }
                st = rescale(st, exp2(m_old - m_new));
            }
            for (var n = 0u; n < keys_per_group; n += 4u) {
                let j = g + n * NKG;
                if (n > 0u || VEARLY == 0u) {
                    vt = load_v_tile(v_head, kb, j, key_end, cv, true);
                }
                st = update(st, probs4(rb, j, slow, m_new), probs4(rb, j + NKG, slow, m_new),
                            probs4(rb, j + 2u * NKG, slow, m_new),
                            probs4(rb, j + 3u * NKG, slow, m_new), unpack_chunk(vt.c0),
                            unpack_chunk(vt.c1), unpack_chunk(vt.c2), unpack_chunk(vt.c3));
            }
            if (cv == 0u && g == 0u) {
                m_s[(par ^ 1u) * nrb + rb] = m_new;
            }
        }
        par ^= 1u;
    }

    // Merge the key groups (all relative to the same max, m_s of the parity after the last
    // tile): red_s[(g * nrb + rb) * 4 + x] holds the sum of query vector rb * 4 + x in key group
    // g.
    workgroupBarrier(); // step 3's readers of P are done (the merge reuses red_s); m_s written
    if (v_thread && cv == 0u) {
        let at = (g * nrb + rb) * 4u;
        red_s[at] = st.l.x;
        red_s[at + 1u] = st.l.y;
        red_s[at + 2u] = st.l.z;
        red_s[at + 3u] = st.l.w;
    }
    workgroupBarrier();
    for (var e = t; e < nrb * 4u; e += WG) {
        let m_all = m_s[par * nrb + e / 4u][e % 4u];
        var l_all = 0.0;
        for (var kg = 0u; kg < NKG; kg++) {
            l_all += red_s[kg * nrb * 4u + e];
        }
        fin_s[2u * e] = m_all;
        fin_s[2u * e + 1u] = l_all;
        let qv = query_vector(kv_head, dg.qv0, e);
        if (qv.valid && p.kv_splits > 1u) {
            put_stats(b, qv.h, qv.i, dg.split, m_all, l_all);
        }
    }
    workgroupBarrier();
    // The key groups' outputs summed: MV of the thread's 8 output vec4s per pass (threads
    // outside the key groups contribute nothing), one thread per (vec4, column chunk, query
    // block) adding the NKG key groups'.
    let slot = nrb * dv8; // one key group's vec4s of one output vec4
    for (var round = 0u; round < 8u / MV; round++) {
        workgroupBarrier(); // the previous pass's readers are done
        if (v_thread) {
            for (var i = 0u; i < MV; i++) {
                let o = output_vec4(st, round * MV + i);
                let at = 4u * (i * WG + t);
                red_s[at] = o.x;
                red_s[at + 1u] = o.y;
                red_s[at + 2u] = o.z;
                red_s[at + 3u] = o.w;
            }
        }
        workgroupBarrier();
        for (var e = t; e < MV * slot; e += WG) {
            let i = e / slot;
            let ee = e % slot;
            let step = round * MV + i;
            let r = (ee / dv8) * 4u + step / 2u;
            if (r < RG) {
                var sum = vec4<f32>();
                for (var kg = 0u; kg < NKG; kg++) {
                    let at = 4u * (i * WG + kg * slot + ee);
                    sum += vec4<f32>(red_s[at], red_s[at + 1u], red_s[at + 2u], red_s[at + 3u]);
                }
                store(kv_head, dg.qv0, r, (ee % dv8) * 8u + (step % 2u) * 4u, sum,
                      fin_s[2u * r + 1u], b, dg.split);
            }
        }
    }
}
