//! Both kernels against the f64 CPU reference (MLX's tolerances: f32 atol 2e-5, f16 3e-4) over
//! dtypes, head dims, GQA/MQA, every mask kind with broadcasts, layouts and ragged lengths.

mod common;

use common::{assert_cases, ctx, PATHS};
use wgpu_sdpa::check::{kv_cache_slice, run_case, CheckCase, Inputs};
use wgpu_sdpa::{
    AttentionDesc, CausalAlignment, DType, Mask, MaskLayout, Path, Tensor, TensorLayout,
};

fn dtypes() -> Vec<DType> {
    let ctx = ctx().expect("checked by the caller");
    if ctx.capabilities().shader_f16 {
        vec![DType::F32, DType::F16]
    } else {
        eprintln!("SKIPPED: f16 cases (adapter has no SHADER_F16)");
        vec![DType::F32]
    }
}

/// `make(dtype)` for both dtypes and both paths, each with MLX's inputs (q, k ~ U(0, 0.5),
/// v ~ U(0, scale): small scores, a nearly flat softmax) and with N(0, 1) inputs (scores of order
/// one and more, where an error in the scale or the mask shows).
fn cases(name: &str, make: impl Fn(DType) -> AttentionDesc) -> Vec<CheckCase> {
    let mut out = Vec::new();
    for dtype in dtypes() {
        for path in PATHS {
            for inputs in [Inputs::Uniform, Inputs::Normal] {
                let mut case = CheckCase::new(
                    format!("{name} {dtype} {path} {inputs:?}"),
                    make(dtype),
                    path,
                );
                case.inputs = inputs;
                out.push(case);
            }
        }
    }
    out
}

#[test]
fn common_head_dims() {
    let Some(ctx) = ctx() else { return };
    let mut all = Vec::new();
    for d in [32, 64, 80, 96, 128, 256] {
        all.extend(cases(&format!("d{d}"), |dt| {
            AttentionDesc::new(1, 2, 2, 33, 65, d).with_dtype(dt)
        }));
    }
    assert_cases(ctx, &all);
}

#[test]
fn uncommon_head_dims_on_the_fused_kernel() {
    let Some(ctx) = ctx() else { return };
    let all: Vec<CheckCase> = [8, 16, 24, 40, 56, 72, 104, 136, 200, 248]
        .into_iter()
        .map(|d| {
            CheckCase::new(
                format!("d{d}"),
                AttentionDesc::new(1, 1, 1, 20, 37, d),
                Path::Fused,
            )
        })
        .collect();
    assert_cases(ctx, &all);
}

#[test]
fn gqa_and_mqa() {
    let Some(ctx) = ctx() else { return };
    let mut all = cases("gqa 32/8", |dt| {
        AttentionDesc::new(1, 32, 8, 9, 40, 64).with_dtype(dt)
    });
    all.extend(cases("mqa 8/1", |dt| {
        AttentionDesc::new(2, 8, 1, 33, 20, 64).with_dtype(dt)
    }));
    all.extend(cases("gqa 6/3 d96", |dt| {
        AttentionDesc::new(1, 6, 3, 40, 33, 96).with_dtype(dt)
    }));
    assert_cases(ctx, &all);
}

#[test]
fn causal_in_both_alignments() {
    let Some(ctx) = ctx() else { return };
    let mut all = Vec::new();
    for (lq, lk) in [
        (33, 77),
        (77, 33),
        (64, 64),
        (1, 50),
        (100, 100),
        (160, 200),
    ] {
        for align in [CausalAlignment::BottomRight, CausalAlignment::TopLeft] {
            all.extend(cases(&format!("causal {align:?} {lq}x{lk}"), |dt| {
                AttentionDesc::new(1, 2, 1, lq, lk, 64)
                    .with_dtype(dt)
                    .with_mask(Mask::Causal(align))
            }));
        }
    }
    assert_cases(ctx, &all);
}

#[test]
fn boolean_and_additive_masks_with_broadcasts() {
    let Some(ctx) = ctx() else { return };
    let (b, h, lq, lk) = (2, 4, 33, 45);
    let layouts = [
        ("[B,H,Lq,Lk]", MaskLayout::dense(true, true, h, lq, lk)),
        ("[1,1,Lq,Lk]", MaskLayout::dense(false, false, h, lq, lk)),
        ("[B,1,Lq,Lk]", MaskLayout::dense(true, false, h, lq, lk)),
        (
            "[B,1,1,Lk]",
            MaskLayout {
                offset: 0,
                batch_stride: lk as u64,
                head_stride: 0,
                q_stride: 0,
            },
        ),
        (
            "[1,H,1,Lk] at offset 5",
            MaskLayout {
                offset: 5,
                batch_stride: 0,
                head_stride: lk as u64,
                q_stride: 0,
            },
        ),
    ];
    let mut all = Vec::new();
    for (name, layout) in layouts {
        all.extend(cases(&format!("bool {name}"), |dt| {
            AttentionDesc::new(b, h, 2, lq, lk, 64)
                .with_dtype(dt)
                .with_mask(Mask::Boolean(layout))
        }));
        all.extend(cases(&format!("additive {name}"), |dt| {
            AttentionDesc::new(b, h, 2, lq, lk, 64)
                .with_dtype(dt)
                .with_mask(Mask::Additive(layout))
        }));
    }
    assert_cases(ctx, &all);
}

#[test]
fn layouts_transposed_sliced_and_strided() {
    let Some(ctx) = ctx() else { return };
    let mut all = cases("BLHD", |dt| {
        AttentionDesc::new(2, 4, 2, 33, 40, 64)
            .with_dtype(dt)
            .transposed()
    });
    all.extend(cases("kv cache slice", |dt| {
        kv_cache_slice(
            AttentionDesc::new(1, 4, 2, 33, 50, 64).with_dtype(dt),
            128,
            9,
        )
    }));
    all.extend(cases("padded rows, offsets", |dt| {
        AttentionDesc::new(2, 2, 2, 35, 40, 32)
            .with_dtype(dt)
            .with_layout(
                Tensor::Q,
                TensorLayout {
                    offset: 16,
                    batch_stride: 2 * 35 * 40,
                    head_stride: 35 * 40,
                    seq_stride: 40,
                },
            )
            .with_layout(
                Tensor::Out,
                TensorLayout {
                    offset: 8,
                    batch_stride: 2 * 35 * 48,
                    head_stride: 35 * 48,
                    seq_stride: 48,
                },
            )
    }));
    all.extend(cases("k shared by the batch (stride 0)", |dt| {
        AttentionDesc::new(3, 2, 2, 33, 20, 64)
            .with_dtype(dt)
            .with_layout(
                Tensor::K,
                TensorLayout {
                    offset: 0,
                    batch_stride: 0,
                    head_stride: 20 * 64,
                    seq_stride: 64,
                },
            )
    }));
    all.extend(cases("dv != d", |dt| {
        AttentionDesc::new(1, 2, 2, 40, 40, 64)
            .with_dtype(dt)
            .with_v_head_dim(128)
    }));
    assert_cases(ctx, &all);
}

#[test]
fn ragged_lengths() {
    let Some(ctx) = ctx() else { return };
    let mut all = Vec::new();
    for (lq, lk) in [
        (1, 300),
        (7, 127),
        (33, 65),
        (65, 33),
        (127, 7),
        (300, 1),
        (300, 127),
    ] {
        all.extend(cases(&format!("{lq}x{lk}"), |dt| {
            AttentionDesc::new(1, 2, 1, lq, lk, 64).with_dtype(dt)
        }));
    }
    assert_cases(ctx, &all);
}

#[test]
fn large_magnitude_inputs() {
    let Some(ctx) = ctx() else { return };
    let mut all = cases("N(0,1) d128", |dt| {
        AttentionDesc::new(1, 2, 2, 40, 90, 128).with_dtype(dt)
    });
    all.extend(cases("N(0,1) d64 causal", |dt| {
        AttentionDesc::new(1, 2, 2, 70, 70, 64)
            .with_dtype(dt)
            .with_mask(Mask::Causal(CausalAlignment::BottomRight))
    }));
    for c in &mut all {
        c.inputs = Inputs::Normal;
    }
    assert_cases(ctx, &all);
}

#[test]
fn fused_matches_unfused() {
    let Some(ctx) = ctx() else { return };
    for dtype in dtypes() {
        let desc = AttentionDesc::new(1, 4, 2, 70, 90, 64)
            .with_dtype(dtype)
            .with_mask(Mask::Causal(CausalAlignment::TopLeft));
        let run = |path| {
            let case = CheckCase::new("agreement", desc.clone(), path);
            run_case(ctx, &case, 7).unwrap()
        };
        let (fused, unfused) = (run(Path::Fused), run(Path::Unfused));
        // Same inputs (same seed): both within tolerance of the reference, hence of each other.
        assert!(fused.comparison.passed() && unfused.comparison.passed());
        let gap = (fused.comparison.max_abs_diff - unfused.comparison.max_abs_diff).abs();
        assert!(
            gap <= 2.0 * wgpu_sdpa::reference::default_atol(dtype),
            "{dtype}: {gap}"
        );
    }
}

#[test]
fn every_fused_block_shape_and_f32_staging() {
    let Some(ctx) = ctx() else { return };
    let mut all = Vec::new();
    for (bq, bk) in [
        (64, 64),
        (64, 32),
        (32, 64),
        (32, 32),
        (16, 16),
        (8, 32),
        (4, 16),
        (32, 48),
        (16, 80),
    ] {
        let mut c = CheckCase::new(
            format!("blocks {bq}x{bk}"),
            AttentionDesc::new(1, 2, 1, 45, 70, 64)
                .with_mask(Mask::Causal(CausalAlignment::BottomRight)),
            Path::Fused,
        );
        c.fused_blocks = Some((bq, bk));
        all.push(c);
    }
    if ctx.capabilities().shader_f16 {
        let mut c = CheckCase::new(
            "f16 staged as f32",
            AttentionDesc::new(1, 2, 2, 40, 50, 128).with_dtype(DType::F16),
            Path::Fused,
        );
        c.fused_stage = Some(DType::F32);
        all.push(c);
    }
    assert_cases(ctx, &all);
}

/// The portable fused kernel with the keys split over workgroups (flash-decoding, then the decode
/// kernel's reduce pass), splits forced as a GPU's planner would choose them for short queries
/// against long caches (the CPU adapter's planner does not split): ragged and tile-aligned
/// splits, GQA, d128, both causal alignments (some splits of some blocks empty), boolean and
/// additive masks, a KV cache slice, transposed layouts; the kernel that ran is checked too.
#[test]
fn fused_kv_splits() {
    let Some(ctx) = ctx() else { return };
    let mut all = Vec::new();
    for dtype in dtypes() {
        let base = |hq, hkv, lq, lk, d| AttentionDesc::new(1, hq, hkv, lq, lk, d).with_dtype(dtype);
        let bool_mask = Mask::Boolean(MaskLayout::dense(true, true, 4, 40, 700));
        let additive = Mask::Additive(MaskLayout::dense(false, false, 4, 40, 700));
        for (name, desc, splits) in [
            ("gqa x3", base(4, 2, 70, 1000, 64), 3),
            ("d128 x5", base(2, 2, 40, 700, 128), 5),
            ("one split per tile", base(2, 1, 33, 300, 64), 1000),
            (
                "causal br x4",
                base(2, 1, 50, 900, 64).with_mask(Mask::Causal(CausalAlignment::BottomRight)),
                4,
            ),
            (
                "causal tl x4",
                base(2, 1, 50, 900, 64).with_mask(Mask::Causal(CausalAlignment::TopLeft)),
                4,
            ),
            (
                "bool mask x3",
                base(4, 2, 40, 700, 64).with_mask(bool_mask),
                3,
            ),
            (
                "additive mask x6",
                base(4, 4, 40, 700, 64).with_mask(additive),
                6,
            ),
            (
                "kv cache slice x4",
                kv_cache_slice(base(4, 2, 40, 600, 64), 1024, 37),
                4,
            ),
            ("transposed x2", base(4, 2, 40, 500, 64).transposed(), 2),
        ] {
            let mut c = CheckCase::new(format!("{dtype} {name}"), desc, Path::Fused);
            c.cooperative = Some(false);
            c.fused_kv_splits = Some(splits);
            c.inputs = Inputs::Normal;
            all.push(c);
        }
    }
    assert_cases(ctx, &all);
    // The split ran: the plan says so.
    let c = &all[0];
    let out = run_case(ctx, c, 3).unwrap();
    match out.kernel {
        wgpu_sdpa::Kernel::Fused(t) => assert_eq!(t.kv_splits, 3, "{}", out.plan),
        other => panic!("{other:?}"),
    }
}
