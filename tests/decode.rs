//! The decode kernel (q_len <= 32) against the f64 reference: q_len 1, 2, 8, 16 and 32, kv_len 1,
//! 7, 1000 and 5000, GQA and MQA, masks, causal, strided KV caches, one and several KV splits, and the
//! split and unsplit results agreeing with each other; on adapters that list 16x16 f16
//! cooperative matrices, the decode kernel on them (f16 against short caches, and past 4 query
//! vectors a KV head against long ones with each subgroup streaming its own keys); on adapters
//! with one fixed subgroup size, the subgroup decode kernel; the splits aimed at the compute
//! units the driver reports.

mod common;

use common::{assert_cases, assert_cases_on, ctx};
use wgpu_sdpa::check::{kv_cache_slice, run_case, CheckCase, Inputs};
use wgpu_sdpa::{AttentionDesc, CausalAlignment, DType, Kernel, Mask, MaskLayout, Path};

fn dtypes() -> Vec<DType> {
    if ctx()
        .expect("checked by the caller")
        .capabilities()
        .shader_f16
    {
        vec![DType::F32, DType::F16]
    } else {
        eprintln!("SKIPPED: f16 decode cases (adapter has no SHADER_F16)");
        vec![DType::F32]
    }
}

fn case(name: String, desc: AttentionDesc, splits: Option<u32>, inputs: Inputs) -> CheckCase {
    let mut c = CheckCase::new(name, desc, Path::Vector);
    c.decode_splits = splits;
    c.inputs = inputs;
    c
}

#[test]
fn query_and_key_lengths_with_gqa() {
    let Some(ctx) = ctx() else { return };
    let mut cases = Vec::new();
    for dtype in dtypes() {
        for q_len in [1, 2, 8, 16, 32] {
            for kv_len in [1, 7, 1000, 5000] {
                for (hq, hkv) in [(8, 2), (4, 1)] {
                    let desc = AttentionDesc::new(1, hq, hkv, q_len, kv_len, 64).with_dtype(dtype);
                    let name = format!("{dtype} q{q_len} kv{kv_len} {hq}/{hkv}");
                    cases.push(case(name, desc, None, Inputs::Normal));
                }
            }
        }
    }
    assert_cases(ctx, &cases);
}

#[test]
fn masks_causal_and_kv_cache_slices() {
    let Some(ctx) = ctx() else { return };
    let mut cases = Vec::new();
    for dtype in dtypes() {
        let base = |lq, lk| AttentionDesc::new(2, 8, 2, lq, lk, 128).with_dtype(dtype);
        for splits in [Some(1), Some(3)] {
            let s = splits.unwrap();
            for align in [CausalAlignment::BottomRight, CausalAlignment::TopLeft] {
                let desc = base(8, 1000).with_mask(Mask::Causal(align));
                cases.push(case(
                    format!("{dtype} causal {align:?} x{s}"),
                    desc,
                    splits,
                    Inputs::Normal,
                ));
            }
            let bool_mask = Mask::Boolean(MaskLayout::dense(true, true, 8, 2, 1000));
            cases.push(case(
                format!("{dtype} bool x{s}"),
                base(2, 1000).with_mask(bool_mask),
                splits,
                Inputs::Uniform,
            ));
            let additive = Mask::Additive(MaskLayout::dense(false, false, 8, 1, 1000));
            cases.push(case(
                format!("{dtype} additive x{s}"),
                base(1, 1000).with_mask(additive),
                splits,
                Inputs::Uniform,
            ));
            // The first 1000 positions of a 4096-long cache, from position 123 on.
            let cache = kv_cache_slice(base(1, 1000), 4096, 123);
            cases.push(case(
                format!("{dtype} cache slice x{s}"),
                cache.clone(),
                splits,
                Inputs::Normal,
            ));
            cases.push(case(
                format!("{dtype} cache slice BLHD q x{s}"),
                cache.transposed(),
                splits,
                Inputs::Normal,
            ));
        }
        let dv = base(1, 700).with_v_head_dim(64);
        cases.push(case(
            format!("{dtype} dv 64 != d 128"),
            dv,
            Some(2),
            Inputs::Normal,
        ));
    }
    assert_cases(ctx, &cases);
}

#[test]
fn split_and_unsplit_agree() {
    let Some(ctx) = ctx() else { return };
    // 8 query vectors a KV head (the portable decode kernel), and 4 (the subgroup kernel where
    // the adapter's subgroups allow it).
    for (dtype, q_len) in dtypes().into_iter().flat_map(|d| [(d, 2), (d, 1)]) {
        let desc = AttentionDesc::new(1, 8, 2, q_len, 5000, 64).with_dtype(dtype);
        let run = |splits| {
            let outcome = run_case(
                ctx,
                &case(
                    "agreement".into(),
                    desc.clone(),
                    Some(splits),
                    Inputs::Normal,
                ),
                11,
            )
            .unwrap();
            let Kernel::Vector(t) = outcome.kernel else {
                panic!("not the decode kernel: {}", outcome.plan)
            };
            assert_eq!(t.kv_splits, splits, "{}", outcome.plan);
            outcome
        };
        let (one, many) = (run(1), run(20));
        assert!(
            one.comparison.passed() && many.comparison.passed(),
            "{:?} {:?}",
            one.comparison,
            many.comparison
        );
        // Same inputs (same seed): each within tolerance of the reference, hence of each other,
        // element by element (the unsplit output taken as the other's reference, twice the
        // tolerance).
        let atol = wgpu_sdpa::reference::default_atol(dtype);
        let agreement = wgpu_sdpa::reference::compare(&desc, &many.output, &one.output, 2.0 * atol);
        assert!(agreement.passed(), "{agreement:?}");
    }
}

/// More splits than the reduce pass has threads (256): its strided walk over the splits and its
/// tree merge of (max, sum) pairs, against the f64 reference; with 8 query vectors a KV head
/// after the portable decode kernel, with 4 after the subgroup kernel where it runs.
#[test]
fn more_splits_than_reduce_threads() {
    let Some(ctx) = ctx() else { return };
    for (dtype, q_len) in dtypes().into_iter().flat_map(|d| [(d, 2), (d, 1)]) {
        let desc = AttentionDesc::new(1, 4, 1, q_len, 38_350, 64).with_dtype(dtype);
        let outcome = run_case(
            ctx,
            &case("300 splits".into(), desc, Some(300), Inputs::Normal),
            13,
        )
        .unwrap();
        let Kernel::Vector(t) = outcome.kernel else {
            panic!("not the decode kernel: {}", outcome.plan)
        };
        assert_eq!(t.kv_splits, 300, "{}", outcome.plan);
        assert!(outcome.comparison.passed(), "{:?}", outcome.comparison);
    }
}

#[test]
fn auto_picks_the_decode_kernel_for_short_queries() {
    let Some(ctx) = ctx() else { return };
    let caps = ctx.capabilities();
    let gpu = caps.device_type != wgpu::DeviceType::Cpu;
    // Where the cooperative kernel runs f16 on its own fragments (the H200), it takes f16 queries
    // past 8 rows against long caches (keys split); elsewhere the decode kernel does.
    let coop_f16 = wgpu_sdpa::kernels::fused_coop::native(caps, DType::F16);
    // f32 past 32 rows against long caches: the cooperative kernel where it serves f32 (split
    // onto f16 fragments on the H200), its keys split.
    let coop_f32 = wgpu_sdpa::kernels::fused_coop::runnable(caps, DType::F32).is_some();
    if coop_f16 {
        println!("the f16 rows past q_len 8 expect the cooperative kernel on this adapter");
    }
    if !gpu {
        println!("SKIPPED: the portable kernel's KV split for f32 q_len 17-32 (a CPU adapter does not split)");
    }
    // Up to q_len 8 always; up to 32 from 128 keys (f32) or 512 (f16); never past 32; f32 past
    // 16 rows against 4096 keys or more on a GPU: the portable kernel with the keys split.
    for (q_len, kv_len, dtype, expected) in [
        (1, 4096, DType::F32, "vector"),
        (8, 16, DType::F32, "vector"),
        (9, 4096, DType::F32, "vector"),
        (16, 16384, DType::F32, "vector"),
        (32, 128, DType::F32, "vector"),
        (32, 4095, DType::F32, "vector"),
        (32, 127, DType::F32, "fused"),
        (
            24,
            16384,
            DType::F32,
            if gpu { "fused split" } else { "vector" },
        ),
        (
            32,
            4096,
            DType::F32,
            if gpu { "fused split" } else { "vector" },
        ),
        (8, 4096, DType::F16, "vector"),
        (
            16,
            512,
            DType::F16,
            if coop_f16 { "coop" } else { "vector" },
        ),
        (16, 511, DType::F16, "unfused"),
        (
            33,
            4096,
            DType::F32,
            if gpu { "fused split" } else { "fused" },
        ),
        (
            64,
            16384,
            DType::F32,
            if coop_f32 {
                "coop"
            } else if gpu {
                "fused split"
            } else {
                "fused"
            },
        ),
    ] {
        if dtype == DType::F16 && !caps.shader_f16 {
            eprintln!("SKIPPED: the f16 row q{q_len} kv{kv_len} (adapter has no SHADER_F16)");
            continue;
        }
        let desc = AttentionDesc::new(1, 8, 2, q_len, kv_len, 128).with_dtype(dtype);
        let plan = ctx.plan(&desc).unwrap();
        let kind = match plan.kernel() {
            Kernel::Vector(_) => "vector",
            Kernel::Fused(t) if t.kv_splits > 1 => "fused split",
            Kernel::Fused(_) => "fused",
            Kernel::FusedCoop(_) => "coop",
            Kernel::Unfused => "unfused",
        };
        assert_eq!(kind, expected, "{desc}: {plan}");
        // Where the cooperative kernel takes a short query against a long cache, it splits the
        // keys (on a GPU).
        if let Kernel::FusedCoop(t) = plan.kernel() {
            if gpu && kv_len >= 4096 {
                assert!(t.kv_splits > 1, "{desc}: {plan}");
            }
        }
    }
    // A forced decode path on a longer query is a typed error.
    let options = wgpu_sdpa::PlanOptions {
        path: Path::Vector,
        ..ctx.plan_options()
    };
    let e = wgpu_sdpa::plan(
        ctx.capabilities(),
        &AttentionDesc::new(1, 8, 2, 33, 64, 64),
        &options,
    )
    .unwrap_err();
    assert!(e.to_string().contains("q_len = 33"), "{e}");
}

/// Longer queries (chunked prefill, speculative decoding) with masks: causal in both alignments
/// (the bottom-right one cuts each split's keys short), a boolean mask, GQA groups of 4 whose
/// 16 or 32 query vectors fill one workgroup or two.
#[test]
fn longer_queries_with_masks() {
    let Some(ctx) = ctx() else { return };
    let mut cases = Vec::new();
    for dtype in dtypes() {
        for q_len in [9, 16, 32] {
            for splits in [Some(1), Some(3)] {
                let s = splits.unwrap();
                let base = AttentionDesc::new(1, 8, 2, q_len, 700, 64).with_dtype(dtype);
                for align in [CausalAlignment::BottomRight, CausalAlignment::TopLeft] {
                    cases.push(case(
                        format!("{dtype} q{q_len} causal {align:?} x{s}"),
                        base.clone().with_mask(Mask::Causal(align)),
                        splits,
                        Inputs::Normal,
                    ));
                }
                let bool_mask = Mask::Boolean(MaskLayout::dense(true, true, 8, q_len, 700));
                cases.push(case(
                    format!("{dtype} q{q_len} bool x{s}"),
                    base.with_mask(bool_mask),
                    splits,
                    Inputs::Uniform,
                ));
            }
        }
    }
    assert_cases(ctx, &cases);
}

/// K and V at odd element offsets and strides: the kernel assembles its 8-element chunks from
/// 32-bit words (no 16-byte loads), including the odd f16 positions that straddle two words.
#[test]
fn unaligned_kv_layouts_use_word_loads() {
    let Some(ctx) = ctx() else { return };
    use wgpu_sdpa::TensorLayout;
    let mut cases = Vec::new();
    for dtype in dtypes() {
        // Offset 1, rows 65 elements apart: 1 + 65,000 + 999 * 65 + 64 = 130,000 elements, a
        // multiple of 16 bytes in both dtypes (the binding's whole vec4<u32>s cover it).
        let layout = TensorLayout {
            offset: 1,
            batch_stride: 130_000,
            head_stride: 65_000,
            seq_stride: 65,
        };
        let desc = AttentionDesc::new(1, 8, 2, 2, 1000, 64)
            .with_dtype(dtype)
            .with_layout(wgpu_sdpa::Tensor::K, layout)
            .with_layout(wgpu_sdpa::Tensor::V, layout);
        assert_eq!(desc.required_bytes(wgpu_sdpa::Tensor::K) % 16, 0);
        for splits in [Some(1), Some(3)] {
            cases.push(case(
                format!("{dtype} unaligned x{}", splits.unwrap()),
                desc.clone(),
                splits,
                Inputs::Normal,
            ));
        }
    }
    assert_cases(ctx, &cases);
}

/// The decode kernel on cooperative matrices (`wgsl/vector_coop.wgsl`), where the adapter lists
/// 16x16 f16 fragments (the H200; skipped, and said so, elsewhere): f16, head dims 64, 96 and
/// 128, 1 to 16 query vectors a workgroup, GQA and MQA, keys from 1 to 4096 in one or several
/// splits, masks, causal, a KV-cache slice, against the f64 reference. Every case must plan it.
#[test]
fn cooperative_matrix_decode_where_listed() {
    let Some(ctx) = ctx() else { return };
    let probe = AttentionDesc::new(1, 8, 2, 1, 1000, 128).with_dtype(DType::F16);
    if !ctx.capabilities().shader_f16
        || !wgpu_sdpa::kernels::vector::matrix_takes(ctx.capabilities(), &probe)
    {
        eprintln!("SKIPPED: the cooperative-matrix decode kernel (no 16x16 f16 fragments here)");
        return;
    }
    let mut cases = Vec::new();
    for d in [64, 128] {
        // More than 4 query vectors a KV head: with at most 4 the subgroup kernel takes them.
        for (hq, hkv, q_len) in [(12, 2, 1), (8, 2, 2), (32, 4, 1), (4, 1, 2), (8, 1, 1)] {
            for kv_len in [1, 7, 1000, 4096] {
                for splits in [None, Some(1), Some(3)] {
                    let desc =
                        AttentionDesc::new(1, hq, hkv, q_len, kv_len, d).with_dtype(DType::F16);
                    let name = format!("d{d} q{q_len} kv{kv_len} {hq}/{hkv} {splits:?}");
                    cases.push(case(name, desc, splits, Inputs::Normal));
                }
            }
        }
    }
    let base = |lq, lk| AttentionDesc::new(2, 8, 2, lq, lk, 128).with_dtype(DType::F16);
    for s in [1, 3] {
        for align in [CausalAlignment::BottomRight, CausalAlignment::TopLeft] {
            let desc = base(2, 1000).with_mask(Mask::Causal(align));
            cases.push(case(
                format!("causal {align:?} x{s}"),
                desc,
                Some(s),
                Inputs::Normal,
            ));
        }
        let bool_mask = Mask::Boolean(MaskLayout::dense(true, true, 8, 2, 1000));
        let desc = base(2, 1000).with_mask(bool_mask);
        cases.push(case(format!("bool x{s}"), desc, Some(s), Inputs::Uniform));
        let additive = Mask::Additive(MaskLayout::dense(false, false, 8, 2, 1000));
        let desc = base(2, 1000).with_mask(additive);
        cases.push(case(
            format!("additive x{s}"),
            desc,
            Some(s),
            Inputs::Uniform,
        ));
        let cache = kv_cache_slice(base(2, 1000), 4096, 123);
        cases.push(case(
            format!("cache slice x{s}"),
            cache,
            Some(s),
            Inputs::Normal,
        ));
    }
    // Longer: N(0, 1) inputs give scores of tens, whose lazily raised row max rescales O.
    cases.push(case(
        "kv3000".into(),
        base(2, 3000),
        Some(2),
        Inputs::Normal,
    ));
    let dv = AttentionDesc::new(1, 8, 2, 2, 1000, 96)
        .with_v_head_dim(64)
        .with_dtype(DType::F16);
    cases.push(case("d96 dv64".into(), dv, None, Inputs::Normal));
    assert_cases_on(
        ctx,
        &cases,
        2000,
        |k| matches!(k, Kernel::Vector(t) if t.matrix),
    );
}

/// The decode kernel on cooperative matrices with each subgroup streaming its own keys
/// (`wgsl/vector_coop_teams.wgsl`), where the adapter lists 16x16 f16 fragments and 32-lane
/// subgroups (the H200; skipped, and said so, elsewhere): f16 at d128 and d64, 6 to 32 query
/// vectors a KV head (GQA, 2 query rows; 32 in two workgroups of 16), long caches (the planner's:
/// from 16384 keys) with a partial last block, one or several splits, masks, causal, a KV-cache
/// slice, batch 2, against the f64 reference. Every case must plan it.
#[test]
fn cooperative_matrix_teams_decode_where_listed() {
    let Some(ctx) = ctx() else { return };
    let long = wgpu_sdpa::kernels::vector::COOP_TEAMS_MIN_KV_LEN;
    let probe = AttentionDesc::new(1, 8, 1, 1, long, 128).with_dtype(DType::F16);
    if !wgpu_sdpa::kernels::vector::coop_teams_take(ctx.capabilities(), &probe) {
        eprintln!(
            "SKIPPED: the cooperative-matrix subgroup decode kernel (no 16x16 f16 fragments with \
             32-lane subgroups here)"
        );
        return;
    }
    let mut cases = Vec::new();
    for (hq, hkv, q_len, dim) in [
        (16, 2, 1, 128),
        (12, 2, 1, 128),
        (8, 1, 2, 128),
        (32, 2, 1, 128),
        (16, 2, 1, 64),
        (32, 2, 1, 64),
        (32, 1, 1, 128),
    ] {
        for kv_len in [long, long + 4321] {
            for splits in [None, Some(1), Some(3)] {
                let desc =
                    AttentionDesc::new(1, hq, hkv, q_len, kv_len, dim).with_dtype(DType::F16);
                let name = format!("d{dim} q{q_len} kv{kv_len} {hq}/{hkv} {splits:?}");
                cases.push(case(name, desc, splits, Inputs::Normal));
            }
        }
    }
    let base = |lq, lk| AttentionDesc::new(2, 8, 1, lq, lk, 128).with_dtype(DType::F16);
    for s in [None, Some(3)] {
        for align in [CausalAlignment::BottomRight, CausalAlignment::TopLeft] {
            let desc = base(2, long).with_mask(Mask::Causal(align));
            cases.push(case(
                format!("causal {align:?} {s:?}"),
                desc,
                s,
                Inputs::Normal,
            ));
        }
        let bool_mask = Mask::Boolean(MaskLayout::dense(true, true, 8, 2, long));
        let desc = base(2, long).with_mask(bool_mask);
        cases.push(case(format!("bool {s:?}"), desc, s, Inputs::Uniform));
        let additive = Mask::Additive(MaskLayout::dense(false, false, 8, 2, long));
        let desc = base(2, long).with_mask(additive);
        cases.push(case(format!("additive {s:?}"), desc, s, Inputs::Uniform));
        let cache = kv_cache_slice(base(1, long + 77), long + 4096, 123);
        cases.push(case(format!("cache slice {s:?}"), cache, s, Inputs::Normal));
    }
    assert_cases_on(
        ctx,
        &cases,
        3000,
        |k| matches!(k, Kernel::Vector(t) if t.matrix && t.team > 0),
    );
}

/// The subgroup decode kernel (`wgsl/vector_subgroup.wgsl`), where the adapter has one fixed
/// subgroup size (lavapipe: 8 lanes, head dims up to 64; the H200 and Apple GPUs: 32, head dims
/// 32 to 256; skipped, and said so, elsewhere): f32 and f16, 1 to 16 query vectors a KV head in
/// workgroups of at most 4 (GQA, MQA, 2 and 4 query rows), keys from 1 to 5000 in one or several
/// splits, masks, causal, KV-cache slices, layouts that need word loads, against the f64
/// reference. Every case must plan it.
#[test]
fn subgroup_decode_where_the_subgroup_size_is_fixed() {
    let Some(ctx) = ctx() else { return };
    let caps = ctx.capabilities();
    // Whether the kernel serves head dims (d, dv) on this adapter (8/2 heads, 64 keys).
    let serves = |&(d, dv): &(u32, u32)| {
        let desc = AttentionDesc::new(1, 8, 2, 1, 64, d).with_v_head_dim(dv);
        wgpu_sdpa::kernels::vector::team_serves(caps, &desc)
    };
    let dims: Vec<u32> = [32, 64, 128, 256]
        .into_iter()
        .filter(|&d| serves(&(d, d)))
        .collect();
    if dims.is_empty() {
        eprintln!(
            "SKIPPED: the subgroup decode kernel (subgroups {}..{} lanes, {}; it needs one fixed size)",
            caps.subgroup_min_size,
            caps.subgroup_max_size,
            if caps.subgroups { "available" } else { "not available" }
        );
        return;
    }
    // And K rows of 4 or 8 lanes where V's are shorter: on lavapipe's 8 lanes the kernel's
    // scattered scores (one a lane, LPK >= 4) run only there.
    let shapes: Vec<(u32, u32)> = dims
        .iter()
        .map(|&d| (d, d))
        .chain([(128, 64), (256, 64)].into_iter().filter(serves))
        .collect();
    // Rows whose chunks of 8 are no power of two: some lanes of a row hold no chunk (d40 and
    // d48 on 8 lanes, d80 to d224 on 32).
    let padded: Vec<(u32, u32)> = [
        (40, 40),
        (48, 48),
        (80, 80),
        (96, 96),
        (112, 112),
        (160, 160),
        (192, 192),
        (224, 224),
        (96, 64),
        (128, 48),
    ]
    .into_iter()
    .filter(serves)
    .collect();
    let mut cases = Vec::new();
    for dtype in dtypes() {
        for &(d, dv) in &padded {
            for (hq, hkv, q_len) in [(8, 2, 1), (3, 3, 1), (8, 2, 4)] {
                for kv_len in [7, 1000, 5000] {
                    for splits in [None, Some(3)] {
                        let heads = (hq, hkv, q_len);
                        cases.push(grid_case(dtype, (d, dv), heads, kv_len, splits, " padded"));
                    }
                }
            }
        }
        for &(d, dv) in &shapes {
            // 4, 4, 4 and 1 query vectors a KV head: one workgroup a KV head; 16: four.
            for (hq, hkv, q_len) in [(8, 2, 1), (4, 1, 1), (4, 2, 2), (3, 3, 1), (8, 2, 4)] {
                for kv_len in [1, 7, 1000, 5000] {
                    // 11 splits: three groups of 4 for the in-pass merge, so that threads sharing
                    // a column quad each fold some (their parts meet in workgroup memory).
                    for splits in [None, Some(1), Some(3), Some(11)] {
                        // 5000 keys in one split of 1 key a block pass lavapipe's loop budget.
                        if d == 256 && dv == 64 && kv_len == 5000 && splits == Some(1) {
                            continue;
                        }
                        if splits == Some(11) && kv_len < 1000 {
                            continue;
                        }
                        let heads = (hq, hkv, q_len);
                        cases.push(grid_case(dtype, (d, dv), heads, kv_len, splits, ""));
                    }
                }
            }
        }
        let d = *dims.last().expect("not empty");
        let base = |lq, lk| AttentionDesc::new(2, 8, 4, lq, lk, d).with_dtype(dtype);
        for s in [1, 3] {
            for align in [CausalAlignment::BottomRight, CausalAlignment::TopLeft] {
                let desc = base(2, 1000).with_mask(Mask::Causal(align));
                cases.push(case(
                    format!("{dtype} causal {align:?} x{s}"),
                    desc,
                    Some(s),
                    Inputs::Normal,
                ));
            }
            let bool_mask = Mask::Boolean(MaskLayout::dense(true, true, 8, 2, 1000));
            let desc = base(2, 1000).with_mask(bool_mask);
            cases.push(case(
                format!("{dtype} bool x{s}"),
                desc,
                Some(s),
                Inputs::Uniform,
            ));
            let additive = Mask::Additive(MaskLayout::dense(false, false, 8, 1, 1000));
            let desc = base(1, 1000).with_mask(additive);
            cases.push(case(
                format!("{dtype} additive x{s}"),
                desc,
                Some(s),
                Inputs::Uniform,
            ));
            let cache = kv_cache_slice(base(1, 1000), 4096, 123);
            cases.push(case(
                format!("{dtype} cache slice x{s}"),
                cache.clone(),
                Some(s),
                Inputs::Normal,
            ));
            cases.push(case(
                format!("{dtype} cache slice BLHD q x{s}"),
                cache.transposed(),
                Some(s),
                Inputs::Normal,
            ));
            // K and V at offset 1, rows 65 elements apart (as in
            // `unaligned_kv_layouts_use_word_loads`): chunks assembled from 32-bit words.
            if dims.contains(&64) {
                let layout = wgpu_sdpa::TensorLayout {
                    offset: 1,
                    batch_stride: 130_000,
                    head_stride: 65_000,
                    seq_stride: 65,
                };
                let odd = AttentionDesc::new(1, 8, 2, 1, 1000, 64)
                    .with_dtype(dtype)
                    .with_layout(wgpu_sdpa::Tensor::K, layout)
                    .with_layout(wgpu_sdpa::Tensor::V, layout);
                cases.push(case(
                    format!("{dtype} word loads x{s}"),
                    odd,
                    Some(s),
                    Inputs::Normal,
                ));
            }
        }
        // Scores rising far past the running max in later blocks (the lazy max, rescaled).
        cases.push(case(
            format!("{dtype} kv3000 uniform"),
            base(1, 3000),
            Some(2),
            Inputs::Uniform,
        ));
    }
    // f32 on 16 teams a workgroup where the adapter takes them (from 8192 keys, `wide_teams`).
    let f32_wide = AttentionDesc::new(1, 8, 2, 1, 8192 + 77, 128);
    if wgpu_sdpa::kernels::vector::wide_teams(caps, &f32_wide) {
        for splits in [None, Some(3)] {
            cases.push(case(
                format!("f32 d128 kv{} 8/2 {splits:?}", f32_wide.kv_len),
                f32_wide.clone(),
                splits,
                Inputs::Normal,
            ));
        }
    }
    // Every case of 3 splits with the reduce pass, and again with the splits merged in the split
    // pass where the adapter allows it (`merges_in_pass`): both endings on one adapter. (The
    // other cases take the planner's choice.)
    for c in cases.iter_mut().filter(|c| c.decode_splits == Some(3)) {
        c.decode_merge_in_pass = Some(false);
    }
    let twins: Vec<CheckCase> = cases
        .iter()
        .filter(|c| c.decode_splits == Some(3))
        .map(|c| {
            let mut twin = c.clone();
            twin.name = format!("{} merged in pass", c.name);
            twin.decode_merge_in_pass = Some(true);
            twin
        })
        .collect();
    cases.extend(twins);
    // Scattered scores (4 query vectors of f16, 4 or more lanes a key: head dims from 128).
    let scattered = std::cell::Cell::new(0);
    let whole_lines = std::cell::Cell::new(0);
    let clamped_v = std::cell::Cell::new(0);
    let ahead = std::cell::Cell::new(0);
    let half_queries = std::cell::Cell::new(0);
    let merged = std::cell::Cell::new(0);
    let wide = std::cell::Cell::new(0);
    let wide_size = wgpu_sdpa::kernels::vector::WIDE_TEAMS * caps.subgroup_min_size;
    assert_cases_on(ctx, &cases, 2000, |k| {
        wide.set(
            wide.get() + matches!(k, Kernel::Vector(t) if t.workgroup_size == wide_size) as u32,
        );
        scattered.set(scattered.get() + matches!(k, Kernel::Vector(t) if t.scattered) as u32);
        whole_lines.set(whole_lines.get() + matches!(k, Kernel::Vector(t) if t.whole_lines) as u32);
        clamped_v.set(clamped_v.get() + matches!(k, Kernel::Vector(t) if t.clamped_v) as u32);
        ahead.set(ahead.get() + matches!(k, Kernel::Vector(t) if t.k_ahead) as u32);
        half_queries
            .set(half_queries.get() + matches!(k, Kernel::Vector(t) if t.half_queries) as u32);
        merged.set(merged.get() + matches!(k, Kernel::Vector(t) if t.merged) as u32);
        matches!(k, Kernel::Vector(t) if t.team > 0)
    });
    if dtypes().contains(&DType::F16) && shapes.iter().any(|&(d, _)| d >= 128) {
        assert!(scattered.get() > 0, "no case took the scattered scores");
    }
    // The queries staged as f16 (f16 at d128, splits of at most 4 strides: the short caches).
    if dtypes().contains(&DType::F16) && shapes.iter().any(|&(d, _)| d == 128) {
        assert!(half_queries.get() > 0, "no case staged the queries as f16");
    }
    // K's rows in whole lines (scattered scores at d128, 32-lane subgroups).
    if dtypes().contains(&DType::F16)
        && shapes.contains(&(128, 128))
        && caps.subgroup_min_size == 32
    {
        assert!(
            whole_lines.get() > 0,
            "no case read K's rows in whole lines"
        );
        // And V's rows past a split's end clamped (whole lines, short splits).
        assert!(
            clamped_v.get() > 0,
            "no case clamped V's rows past its split"
        );
        // And the loads a block ahead (f16 d128/128, splits of more than 8 strides).
        assert!(ahead.get() > 0, "no case loaded a block ahead");
    } else {
        println!(
            "SKIPPED: K's rows in whole lines, V's clamped and the loads a block ahead (f16, \
             d128, 32-lane subgroups)"
        );
    }
    if in_pass_merge_available(caps) {
        assert!(
            merged.get() > 0,
            "no case merged its splits in the split pass"
        );
    } else {
        println!("SKIPPED: the splits merged in the split pass (Vulkan with @coherent storage)");
    }
    // 16 teams a workgroup (discrete GPUs, d128, f16 at 5000 keys, few query groups of 4
    // query vectors: `wide_teams`).
    let probe = AttentionDesc::new(1, 8, 2, 1, 5000, 128).with_dtype(DType::F16);
    if dtypes().contains(&DType::F16)
        && shapes.contains(&(128, 128))
        && wgpu_sdpa::kernels::vector::wide_teams(caps, &probe)
    {
        assert!(wide.get() > 0, "no case ran 16 teams a workgroup");
    } else {
        println!("SKIPPED: 16 teams a workgroup (discrete GPUs through Vulkan, d128, f16)");
    }
    eprintln!(
        "{} cases on the subgroup decode kernel (head dims {shapes:?} and {padded:?}, {} \
         lanes), {} with scattered scores ({} reading K in whole lines, {} of them clamping V), \
         {} loading a block ahead, {} staging the queries as f16, {} with the splits merged in \
         the split pass, {} with 16 teams a workgroup",
        cases.len(),
        caps.subgroup_min_size,
        scattered.get(),
        whole_lines.get(),
        clamped_v.get(),
        ahead.get(),
        half_queries.get(),
        merged.get(),
        wide.get()
    );
}

/// A case of the subgroup kernel's grid: head dims `(d, dv)`, `(q_heads, kv_heads, q_len)`,
/// normal inputs, its name ending in `tag`.
fn grid_case(
    dtype: DType,
    (d, dv): (u32, u32),
    (hq, hkv, q_len): (u32, u32, u32),
    kv_len: u32,
    splits: Option<u32>,
    tag: &str,
) -> CheckCase {
    let desc = AttentionDesc::new(1, hq, hkv, q_len, kv_len, d)
        .with_v_head_dim(dv)
        .with_dtype(dtype);
    let name = format!("{dtype} d{d} dv{dv} q{q_len} kv{kv_len} {hq}/{hkv} {splits:?}{tag}");
    case(name, desc, splits, Inputs::Normal)
}

/// Whether the adapter lets the subgroup kernel's split pass merge its own splits
/// (`wgsl/split_merge_in_pass.wgsl`).
fn in_pass_merge_available(caps: &wgpu_sdpa::Capabilities) -> bool {
    caps.backend == wgpu::Backend::Vulkan && caps.coherent_storage
}

/// The split pass that merges its own splits keeps one arrival counter per query group, which
/// the last split to arrive sets back to zero: one `Attention` called again and again (new
/// inputs each time; 2 batches, 16 query vectors a KV head: 4 query groups each) must match the
/// f64 reference every time. Where the subgroup kernel or the in-pass merge does not run, skipped
/// and said so.
#[test]
fn in_pass_merge_counts_again_on_every_call() {
    use wgpu_sdpa::reference::{attention_reference, compare, default_atol};
    use wgpu_sdpa::{Attention, PlanOptions, Tensor};
    let Some(ctx) = ctx() else { return };
    let desc = AttentionDesc::new(2, 8, 2, 4, 1000, 64);
    let options = PlanOptions {
        path: Path::Vector,
        decode_splits: Some(5),
        decode_merge_in_pass: Some(true),
        ..ctx.plan_options()
    };
    let attention = Attention::with_options(ctx, &desc, &options).unwrap();
    let Kernel::Vector(t) = attention.plan().kernel() else {
        panic!("not the decode kernel: {}", attention.plan())
    };
    if !t.merged {
        assert!(
            !in_pass_merge_available(ctx.capabilities()) || t.team == 0,
            "the subgroup kernel did not merge in pass: {}",
            attention.plan()
        );
        println!(
            "SKIPPED: the splits merged in the split pass (not planned here: {})",
            attention.plan()
        );
        return;
    }
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut draw = |n: usize| -> Vec<f32> {
        (0..n)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                ((state >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
            })
            .collect()
    };
    for call in 0..4 {
        let q = draw(desc.required_elements(Tensor::Q) as usize);
        let k = draw(desc.required_elements(Tensor::K) as usize);
        let v = draw(desc.required_elements(Tensor::V) as usize);
        let out = attention.run(&q, &k, &v, None).unwrap();
        let wide = |x: &[f32]| x.iter().map(|&e| e as f64).collect::<Vec<f64>>();
        let reference = attention_reference(&desc, &wide(&q), &wide(&k), &wide(&v), None);
        let c = compare(&desc, &wide(&out), &reference, default_atol(DType::F32));
        assert!(c.passed(), "call {call}: {c:?} ({})", attention.plan());
    }
}

#[test]
fn splits_scale_with_the_compute_units_the_driver_reports() {
    let Some(ctx) = ctx() else { return };
    let caps = ctx.capabilities();
    // Known counts: the H200's 132 SMs (VK_NV_shader_sm_builtins); lavapipe has neither
    // driver extension.
    let known = if caps.adapter_name.contains("H200") {
        Some(132)
    } else if caps.adapter_name.starts_with("llvmpipe") {
        Some(0)
    } else {
        None
    };
    match known {
        Some(units) => assert_eq!(caps.compute_units, units, "{}", caps.adapter_name),
        None => println!(
            "SKIPPED: no known compute unit count for {} (the driver reports {})",
            caps.adapter_name, caps.compute_units
        ),
    }
    // The decode plan on this device as if it were a GPU of 3 compute units: the splits aim at
    // 6 workgroups (4/2 heads, q_len 1: 2 query groups, 3 splits), and the result matches the
    // reference.
    let mut small = caps.clone();
    small.device_type = wgpu::DeviceType::DiscreteGpu;
    small.compute_units = 3;
    let small = wgpu_sdpa::Context::from_parts(ctx.device().clone(), ctx.queue().clone(), small);
    let desc = AttentionDesc::new(1, 4, 2, 1, 5000, 64);
    let plan = wgpu_sdpa::plan(small.capabilities(), &desc, &Default::default()).unwrap();
    let Kernel::Vector(t) = plan.kernel() else {
        panic!("not the decode kernel: {plan}")
    };
    assert_eq!(t.kv_splits, 3, "{plan}");
    let name = "f32 q1 kv5000 4/2 on 3 compute units".to_string();
    assert_cases(&small, &[case(name, desc, None, Inputs::Normal)]);
}
