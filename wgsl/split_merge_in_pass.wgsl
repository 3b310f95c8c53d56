// The end of a decode split pass that merges its own splits (wgsl/vector_subgroup.wgsl), in
// place of the reduce pass (wgsl/vector_reduce.wgsl, a second dispatch; on the H200 it cost
// ~5 us a call at 16384 keys, BENCHMARKS.md seventeenth session).
//
// Each workgroup, once its partial rows and (max, sum) are stored, counts itself in its query
// group's arrival counter; the last of the group's kv_splits workgroups to arrive reads every
// split's partial rows, writes the normalised output and sets the counter back to zero for the
// next call. No workgroup waits for another: no scheduling order can hang it.
//
// Ordering across workgroups: the host takes this ending only on Vulkan with `@coherent` storage
// (Features::MEMORY_DECORATION_COHERENT), where naga writes `storageBarrier()` as a control
// barrier with device-scope acquire-release semantics on storage memory and the atomics at
// device scope. A workgroup's stores, then that barrier (release), then its count; the last
// count read, then a barrier (acquire) before any thread reads the partial results: every
// split's stores happen before the reads, and `@coherent` makes them visible past the caches.

@group(0) @binding(7) var<storage, read_write> arrivals: array<atomic<u32>>;

// Whether this workgroup arrived last (thread 0 writes it; 2 for the first to count where
// MERGE_ABLATE 1024 times the arrivals). Where several threads share a column
// quad, each one's merged part goes to the kernel's `o_s` (the teams' outputs, read before the
// first fence): its quad at t, its (max, sum) at TEAM * TEAMS + t (the host checks that
// 2 * TEAM * OS_PARTS <= V_HEAD_DIM). No workgroup memory of its own: on the H200 6 KB more
// (24.8 KB at d128) took the split pass from 126 registers to 137 and one workgroup an SM
// (BENCHMARKS.md, seventeenth session).
var<workgroup> last_s: u32;

// The device-scope fence (profiling: MERGE_ABLATE 4 takes a workgroup barrier instead).
fn fence() {
    if ((MERGE_ABLATE & 4u) != 0u) {
        workgroupBarrier();
    } else {
        storageBarrier();
    }
}

// Writes column quad c of query vector r of the workgroup, normalised (zeros where every key
// was excluded: l == 0).
fn put_merged(kv_head: u32, qv0: u32, b: u32, r: u32, c: u32, st: Part) {
    let qv = query_vector(kv_head, qv0, r);
    // MERGE_ABLATE 512 (profiling, wrong results): no output stores (the merge still computed).
    if (!qv.valid || ((MERGE_ABLATE & 512u) != 0u && st.l != -1.0)) {
        return;
    }
    let x = vec4<elem>(select(st.o / st.l, vec4<f32>(0.0), st.l == 0.0));
    let at = row_base(p.out, b, qv.h, qv.i) + 4u * c;
    out[at] = x.x;
    out[at + 1u] = x.y;
    out[at + 2u] = x.z;
    out[at + 3u] = x.w;
}

// Thread t's merge of column quad c of query vector r over its splits: the groups of 4
// consecutive splits lane, lane + lanes, ..., 6 loads a round. (On the H200 groups of 8
// consecutive splits a round were slower, and so were the loads of 2 or 3 groups issued before
// merging any: BENCHMARKS.md, nineteenth session, runs 50, 53 and 54.)
fn merge_unit(kv_head: u32, qv0: u32, b: u32, r: u32, c: u32, lane: u32, lanes: u32) -> Part {
    var st = Part(FLOOR, 0.0, vec4<f32>());
    let qv = query_vector(kv_head, qv0, r);
    if (!qv.valid) {
        return st;
    }
    let v = (b * p.q_heads + qv.h) * p.q_len + qv.i;
    // MERGE_ABLATE 32 (profiling, wrong results): the first 8 splits only.
    let splits = select(p.kv_splits, min(p.kv_splits, 8u), (MERGE_ABLATE & 32u) != 0u);
    for (var g = lane; 4u * g < splits; g += lanes) {
        // MERGE_ABLATE 64 (profiling, wrong results): every round loads the lane's first group
        // again (the same rounds, a quarter of the distinct lines).
        st = merge_group4(st, v, select(g, lane, (MERGE_ABLATE & 64u) != 0u), c);
    }
    return st;
}

// Profiling only (MERGE_ABLATE 1024, wrong results; it waits for other workgroups, which only a
// GPU that holds every workgroup of the call at once allows, and gives up after 2^20 polls;
// examples/arrival_spread.rs reads it): the first workgroup of the query group to count polls
// counter `at` until every split has counted, and writes to its first query vector's output
// row, at k, the poll at which the count first passed k (k < kv_splits), and at V_HEAD_DIM - 1
// the polls in all; with MERGE_ABLATE 2048 it polls 1000 times more (their time, from `sdpa
// bench`, is the poll's period). Then it sets the counter back to zero (nothing merges).
fn record_arrivals(kv_head: u32, qv0: u32, b: u32, at: u32) {
    let qv = query_vector(kv_head, qv0, 0u);
    let row = row_base(p.out, b, qv.h, qv.i);
    out[row] = elem(0.0);
    var seen = 1u;
    var i = 0u;
    loop {
        let c = min(atomicLoad(&arrivals[at]), V_HEAD_DIM - 1u);
        for (; seen < c; seen++) {
            out[row + seen] = elem(f32(min(i, 60000u)));
        }
        if (c >= min(p.kv_splits, V_HEAD_DIM - 1u) || i >= 1048576u) {
            break;
        }
        i++;
    }
    if ((MERGE_ABLATE & 2048u) != 0u) {
        var x = 0u;
        for (var n = 0u; n < 1000u; n++) {
            x += atomicLoad(&arrivals[at]);
        }
        if (x == 0xffffffffu) {
            out[row + 1u] = elem(1.0);
        }
    }
    out[row + V_HEAD_DIM - 1u] = elem(f32(min(i, 60000u)));
    atomicStore(&arrivals[at], 0u);
}

// Called by every thread t of the workgroup of query vectors qv0.. of KV head kv_head, batch b,
// after its partial results are stored.
fn merge_splits(kv_head: u32, qv0: u32, b: u32, t: u32) {
    if (p.kv_splits == 1u || (MERGE_ABLATE & 8u) != 0u) {
        return; // the output is written
    }
    fence(); // release: this workgroup's partial results before its count
    if ((MERGE_ABLATE & 2u) != 0u) {
        return;
    }
    let at = (b * p.kv_heads + kv_head) * groups_per_head(RG) + qv0 / RG;
    if (t == 0u) {
        let count = atomicAdd(&arrivals[at], 1u);
        last_s = u32(count + 1u == p.kv_splits);
        if ((MERGE_ABLATE & 1024u) != 0u && count == 0u) {
            last_s = 2u; // profiling: the first to count (see `record_arrivals`)
        }
    }
    // Acquire: thread 0 read the last count, and every thread passes this fence after it. (A
    // third fence here, as there was until the twenty-first session, orders nothing more: on
    // the H200, where each fence is a MEMBAR.SC.GPU, the call was ~0.3% faster without it.)
    fence();
    let role = workgroupUniformLoad(&last_s);
    if ((MERGE_ABLATE & 1024u) != 0u) {
        if (role == 2u && t == 0u) {
            record_arrivals(kv_head, qv0, b, at);
        }
        return;
    }
    if (role == 0u || (MERGE_ABLATE & 1u) != 0u) {
        return;
    }
    // The counter back to zero for the next call (every split has counted: no other workgroup
    // touches it again in this one), after the fences so that they need not wait for the store
    // (no faster on the H200, BENCHMARKS.md, twenty-first session, but nothing waits on it).
    if (t == 0u) {
        atomicStore(&arrivals[at], 0u);
    }

    // Units are (query vector, column quad); `lanes` threads share a unit where there are
    // threads to spare, each folding every lanes-th split, then merged in workgroup memory.
    let threads = TEAM * TEAMS;
    let dv4 = V_HEAD_DIM / 4u;
    let units = RG * dv4;
    let lanes = max(1u, threads / units);
    if (lanes == 1u) {
        for (var e = t; e < units; e += threads) {
            put_merged(kv_head, qv0, b, e / dv4, e % dv4,
                       merge_unit(kv_head, qv0, b, e / dv4, e % dv4, 0u, 1u));
        }
        return;
    }
    var st = Part(FLOOR, 0.0, vec4<f32>());
    let unit = t % units;
    if (t < units * lanes) {
        st = merge_unit(kv_head, qv0, b, unit / dv4, unit % dv4, t / units, lanes);
    }
    if ((MERGE_ABLATE & 256u) != 0u) {
        // Profiling, wrong results: each unit's first thread writes its own part, no combine.
        if (t < units) {
            put_merged(kv_head, qv0, b, unit / dv4, unit % dv4, st);
        }
        return;
    }
    o_s[t] = st.o;
    o_s[threads + t] = vec4<f32>(st.m, st.l, 0.0, 0.0);
    workgroupBarrier();
    if (t < units) {
        var m = FLOOR;
        for (var n = 0u; n < lanes; n++) {
            m = max(m, o_s[threads + n * units + t].x);
        }
        var all = Part(m, 0.0, vec4<f32>());
        for (var n = 0u; n < lanes; n++) {
            let ml = o_s[threads + n * units + t];
            let w = exp2(ml.x - m);
            all.l += w * ml.y;
            all.o += w * o_s[n * units + t];
        }
        put_merged(kv_head, qv0, b, t / dv4, t % dv4, all);
    }
}
