// K/V staging of wgsl/fused_coop.wgsl in 16-byte words, prefetched: the host picks this file
// when every offset and stride of K and V is a multiple of 16 bytes. `fetch_tile` issues the
// next tile's loads into registers (NL words per invocation) before the current tile is
// computed, so their latency hides behind the matrix work; `put_tile` writes them to kv_s.
// CH (elements per word) and `put_word` come from wgsl/coop_word_*.wgsl.

@group(0) @binding(2) var<storage, read> k: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> v: array<vec4<u32>>;

override NL: u32 = 4u;         // words per invocation and tile: ceil(BK * (HEAD_DIM + V_HEAD_DIM) / CH / WG) <= 8

struct Regs {
    w0: vec4<u32>,
    w1: vec4<u32>,
    w2: vec4<u32>,
    w3: vec4<u32>,
    w4: vec4<u32>,
    w5: vec4<u32>,
    w6: vec4<u32>,
    w7: vec4<u32>,
}

// Word `e` of the tile from key kb: K's words first, then V's; zeros past `fetch_end` (the end of
// the workgroup's keys, at most kv_len) or past the tile's words.
fn fetch_word(e: u32, kb: u32, k_head: u32, v_head: u32) -> vec4<u32> {
    let k_words = BK * HEAD_DIM / CH;
    var w = vec4<u32>();
    if ((ABLATE & 32u) != 0u) {
        return w; // profiling: the staging's workgroup-memory writes without its loads
    }
    if (e < k_words) {
        let r = e / (HEAD_DIM / CH);
        let c = (e % (HEAD_DIM / CH)) * CH;
        if (kb + r < fetch_end) {
            w = k[(k_head + (kb + r) * p.k.w + c) / CH];
        }
    } else if (e < k_words + BK * V_HEAD_DIM / CH) {
        let f = e - k_words;
        let r = f / (V_HEAD_DIM / CH);
        let c = (f % (V_HEAD_DIM / CH)) * CH;
        if (kb + r < fetch_end) {
            w = v[(v_head + (kb + r) * p.v.w + c) / CH];
        }
    }
    return w;
}

// Stores word `e` of the tile to its place in kv_s.
fn put_word_at(e: u32, w: vec4<u32>) {
    let k_words = BK * HEAD_DIM / CH;
    if (e < k_words) {
        let r = e / (HEAD_DIM / CH);
        let c = (e % (HEAD_DIM / CH)) * CH;
        put_word(r * (HEAD_DIM + PAD) + c, w);
    } else if (e < k_words + BK * V_HEAD_DIM / CH) {
        let f = e - k_words;
        let r = f / (V_HEAD_DIM / CH);
        let c = (f % (V_HEAD_DIM / CH)) * CH;
        put_word(BK * (HEAD_DIM + PAD) + r * (V_HEAD_DIM + PAD) + c, w);
    }
}

// Whether word `e` of a tile is K's (else V's or past the tile).
fn is_k_word(e: u32) -> bool {
    return e < BK * HEAD_DIM / CH;
}

// fetch_tile / put_tile for K's words only (`want_k`) or V's only, for PIPE 1.
fn fetch_part(regs: ptr<function, Regs>, kb: u32, k_head: u32, v_head: u32, t: u32, want_k: bool) {
    if (is_k_word(t) == want_k) { (*regs).w0 = fetch_word(t, kb, k_head, v_head); }
    if (NL > 1u && is_k_word(t + WG) == want_k) { (*regs).w1 = fetch_word(t + WG, kb, k_head, v_head); }
    if (NL > 2u && is_k_word(t + 2u * WG) == want_k) { (*regs).w2 = fetch_word(t + 2u * WG, kb, k_head, v_head); }
    if (NL > 3u && is_k_word(t + 3u * WG) == want_k) { (*regs).w3 = fetch_word(t + 3u * WG, kb, k_head, v_head); }
    if (NL > 4u && is_k_word(t + 4u * WG) == want_k) { (*regs).w4 = fetch_word(t + 4u * WG, kb, k_head, v_head); }
    if (NL > 5u && is_k_word(t + 5u * WG) == want_k) { (*regs).w5 = fetch_word(t + 5u * WG, kb, k_head, v_head); }
    if (NL > 6u && is_k_word(t + 6u * WG) == want_k) { (*regs).w6 = fetch_word(t + 6u * WG, kb, k_head, v_head); }
    if (NL > 7u && is_k_word(t + 7u * WG) == want_k) { (*regs).w7 = fetch_word(t + 7u * WG, kb, k_head, v_head); }
}

fn put_part(regs: ptr<function, Regs>, kb: u32, k_head: u32, v_head: u32, t: u32, want_k: bool) {
    if (is_k_word(t) == want_k) { put_word_at(t, (*regs).w0); }
    if (NL > 1u && is_k_word(t + WG) == want_k) { put_word_at(t + WG, (*regs).w1); }
    if (NL > 2u && is_k_word(t + 2u * WG) == want_k) { put_word_at(t + 2u * WG, (*regs).w2); }
    if (NL > 3u && is_k_word(t + 3u * WG) == want_k) { put_word_at(t + 3u * WG, (*regs).w3); }
    if (NL > 4u && is_k_word(t + 4u * WG) == want_k) { put_word_at(t + 4u * WG, (*regs).w4); }
    if (NL > 5u && is_k_word(t + 5u * WG) == want_k) { put_word_at(t + 5u * WG, (*regs).w5); }
    if (NL > 6u && is_k_word(t + 6u * WG) == want_k) { put_word_at(t + 6u * WG, (*regs).w6); }
    if (NL > 7u && is_k_word(t + 7u * WG) == want_k) { put_word_at(t + 7u * WG, (*regs).w7); }
}

fn fetch_tile(regs: ptr<function, Regs>, kb: u32, k_head: u32, v_head: u32, t: u32) {
    (*regs).w0 = fetch_word(t, kb, k_head, v_head);
    if (NL > 1u) { (*regs).w1 = fetch_word(t + WG, kb, k_head, v_head); }
    if (NL > 2u) { (*regs).w2 = fetch_word(t + 2u * WG, kb, k_head, v_head); }
    if (NL > 3u) { (*regs).w3 = fetch_word(t + 3u * WG, kb, k_head, v_head); }
    if (NL > 4u) { (*regs).w4 = fetch_word(t + 4u * WG, kb, k_head, v_head); }
    if (NL > 5u) { (*regs).w5 = fetch_word(t + 5u * WG, kb, k_head, v_head); }
    if (NL > 6u) { (*regs).w6 = fetch_word(t + 6u * WG, kb, k_head, v_head); }
    if (NL > 7u) { (*regs).w7 = fetch_word(t + 7u * WG, kb, k_head, v_head); }
}

fn put_tile(regs: ptr<function, Regs>, kb: u32, k_head: u32, v_head: u32, t: u32) {
    put_word_at(t, (*regs).w0);
    if (NL > 1u) { put_word_at(t + WG, (*regs).w1); }
    if (NL > 2u) { put_word_at(t + 2u * WG, (*regs).w2); }
    if (NL > 3u) { put_word_at(t + 3u * WG, (*regs).w3); }
    if (NL > 4u) { put_word_at(t + 4u * WG, (*regs).w4); }
    if (NL > 5u) { put_word_at(t + 5u * WG, (*regs).w5); }
    if (NL > 6u) { put_word_at(t + 6u * WG, (*regs).w6); }
    if (NL > 7u) { put_word_at(t + 7u * WG, (*regs).w7); }
}
