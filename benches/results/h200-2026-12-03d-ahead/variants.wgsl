// The variants of runs 142-143 (not kept), as `stream_blocks_ahead` in wgsl/vector_subgroup.wgsl
// read on those trees (knob decode_sg_pf=N set PF=N; the committed kernel is PF=1's loop).
// PF=2: the last block taken after the loop, no loads asked for past it (158 registers).
    if (PF == 2u) {
        var kb = first;
        for (; kb + stride < ln.key_end; kb += stride) {
            let kn = load_k(k_head, kb + stride, ln.key_end, ln.jk, u);
            let vn = load_v(v_head, kb + stride, ln.key_end, c, ln.kh);
            acc = block_pv(block_scores(acc, kx, kb, ln), vx, ln);
            kx = kn;
            vx = vn;
        }
        return block_pv(block_scores(acc, kx, kb, ln), vx, ln);
    }
// PF=1 (committed), PF=3 (past the last block, the last block's loads again: 128 registers) and
// PF=4 (past it, none asked for, under a branch uniform over the team: 162 registers).
    for (var kb = first; kb < ln.key_end; kb += stride) {
        var next = kb + stride;
        if (PF == 3u) {
            next = select(next, kb, next >= ln.key_end);
        }
        var kn = kx;
        var vn = vx;
        if (PF != 4u || next < ln.key_end) {
            kn = load_k(k_head, next, ln.key_end, ln.jk, u);
            vn = load_v(v_head, next, ln.key_end, c, ln.kh);
        }
        acc = block_pv(block_scores(acc, kx, kb, ln), vx, ln);
        kx = kn;
        vx = vn;
    }
    return acc;
