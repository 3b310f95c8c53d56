//! Tensors larger than the adapter's storage binding: a typed `Error::ExceedsLimit` naming the
//! tensor and the limit, for every kernel path and every tensor, never a wgpu validation error or
//! panic; at the limit exactly, the problem runs and matches the f64 reference. The unfused score
//! scratch: past the limit for one head an error, otherwise heads in chunks that still compute
//! right. Limits are lowered by stating lower capabilities for the same device
//! (`Context::from_parts`), so no large buffer is needed.

mod common;

use common::{assert_cases, ctx, PATHS};
use wgpu_sdpa::check::{run_case, CheckCase};
use wgpu_sdpa::{
    plan, Attention, AttentionBuffers, AttentionDesc, CausalAlignment, Context, DType, Error,
    Kernel, Mask, MaskLayout, Path, PlanOptions, Tensor, TensorLayout,
};

const LIMIT: &str = "max_storage_buffer_binding_size";

fn lowered(ctx: &Context, binding_bytes: u64) -> Context {
    let mut caps = ctx.capabilities().clone();
    caps.max_storage_binding_bytes = binding_bytes;
    Context::from_parts(ctx.device().clone(), ctx.queue().clone(), caps)
}

fn forced(path: Path) -> PlanOptions {
    PlanOptions {
        path,
        ..PlanOptions::default()
    }
}

/// A small problem (fused-eligible: q_len 40) with a mask of `kind`, where `big` is pushed
/// 50,000 elements into its buffer so that it alone is far larger than every other tensor.
fn problem(big: Tensor, boolean_mask: bool, dtype: DType) -> AttentionDesc {
    let (b, hq, hkv, lq, lk, d) = (1, 2, 1, 40, 40, 32);
    let mut mask_layout = MaskLayout::dense(false, true, hq, lq, lk);
    if big == Tensor::Mask {
        mask_layout.offset = 50_000;
    }
    let mut desc = AttentionDesc::new(b, hq, hkv, lq, lk, d)
        .with_dtype(dtype)
        .with_mask(if boolean_mask {
            Mask::Boolean(mask_layout)
        } else {
            Mask::Additive(mask_layout)
        });
    if big != Tensor::Mask {
        let layout = desc.layout(big).with_offset(50_000);
        desc = desc.with_layout(big, layout);
    }
    desc
}

const TENSORS: [Tensor; 5] = [Tensor::Q, Tensor::K, Tensor::V, Tensor::Out, Tensor::Mask];

#[test]
fn each_tensor_past_the_binding_limit_is_a_typed_error_on_every_path() {
    let Some(ctx) = ctx() else { return };
    let mut checked = 0;
    for dtype in [DType::F32, DType::F16] {
        if dtype == DType::F16 && !ctx.capabilities().shader_f16 {
            eprintln!("SKIPPED: f16 limit cases (no SHADER_F16)");
            continue;
        }
        for boolean_mask in [false, true] {
            for big in TENSORS {
                let desc = problem(big, boolean_mask, dtype);
                let needed = desc.required_bytes(big).next_multiple_of(4);
                // Every other tensor and the unfused scores (40 * 40 * 4 bytes per head) fit.
                let others = TENSORS
                    .iter()
                    .filter(|&&t| t != big)
                    .map(|&t| desc.required_bytes(t).next_multiple_of(4))
                    .chain([40 * 40 * 4])
                    .max()
                    .unwrap();
                assert!(needed > others, "{big:?} must be the largest");
                let small = lowered(ctx, needed - 4);
                for path in [Path::Auto, Path::Unfused, Path::Fused] {
                    let e = Attention::with_options(&small, &desc, &forced(path))
                        .map(|a| a.plan().to_string())
                        .expect_err("past the binding limit");
                    println!("{path} {dtype} {big:?}: {e}");
                    assert_eq!(
                        e,
                        Error::ExceedsLimit {
                            field: format!("{} bytes", big.name()),
                            value: needed,
                            limit_name: LIMIT.into(),
                            limit: needed - 4,
                        },
                        "{path} {dtype} {big:?}"
                    );
                    checked += 1;
                }
                // At the limit exactly, both kernels run and match the reference.
                let exact = lowered(ctx, needed);
                let cases: Vec<CheckCase> = PATHS
                    .iter()
                    .map(|&path| {
                        CheckCase::new(
                            format!("{path} {dtype} {big:?} at the limit"),
                            desc.clone(),
                            path,
                        )
                    })
                    .collect();
                assert_cases(&exact, &cases);
            }
        }
    }
    println!("{checked} over-limit cases, each a typed error naming {LIMIT}");
}

#[test]
fn the_devices_own_limit_is_enforced_without_allocating() {
    let Some(ctx) = ctx() else { return };
    let limit = ctx.capabilities().max_storage_binding_bytes;
    // q starts just below the limit: its bytes pass it by one row.
    let offset = limit / 4 - 8;
    let desc = AttentionDesc::new(1, 1, 1, 4, 4, 8)
        .with_layout(Tensor::Q, TensorLayout::bhld(1, 4, 8).with_offset(offset));
    if desc.validate().is_err() {
        eprintln!("SKIPPED: the binding limit ({limit} B) is past 32-bit element indices");
        return;
    }
    for path in PATHS {
        let e = Attention::with_options(ctx, &desc, &forced(path)).unwrap_err();
        assert!(
            matches!(&e, Error::ExceedsLimit { field, limit_name, limit: l, .. }
                if field == "q bytes" && limit_name == LIMIT && *l == limit),
            "{path}: {e}"
        );
    }
}

#[test]
fn a_buffer_larger_than_the_binding_limit_is_bound_in_its_first_bytes() {
    let Some(ctx) = ctx() else { return };
    // The caller's q buffer is 1 KiB past the device's binding limit (128 MiB on lavapipe); the
    // tensor itself fits, so the first max_storage_buffer_binding_size bytes are bound (binding
    // the whole buffer would be a wgpu validation error).
    let small = ctx;
    let q_size = (small.capabilities().max_storage_binding_bytes + 1024) / 4 * 4;
    if q_size > small.capabilities().max_buffer_bytes {
        eprintln!("SKIPPED: max_buffer_size is not above max_storage_buffer_binding_size");
        return;
    }
    let desc = AttentionDesc::new(1, 2, 2, 40, 40, 32);
    let values = |t: Tensor, seed: u64| -> Vec<f32> {
        (0..desc.required_elements(t))
            .map(|i| ((i * 7919 + seed) % 113) as f32 / 226.0)
            .collect()
    };
    let (q, k, v) = (
        values(Tensor::Q, 1),
        values(Tensor::K, 2),
        values(Tensor::V, 3),
    );
    let device = small.device();
    let buffer = |data: &[f32], size: u64, usage: wgpu::BufferUsages| {
        let b = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size,
            usage: usage | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        small
            .queue()
            .write_buffer(&b, 0, bytemuck::cast_slice(data));
        b
    };
    let storage = wgpu::BufferUsages::STORAGE;
    let qb = buffer(&q, q_size, storage);
    let kb = buffer(&k, (k.len() * 4) as u64, storage);
    let vb = buffer(&v, (v.len() * 4) as u64, storage);
    let out_bytes = desc.required_bytes(Tensor::Out);
    let ob = buffer(&[], out_bytes, storage | wgpu::BufferUsages::COPY_SRC);
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: out_bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    for path in PATHS {
        let attention = Attention::with_options(small, &desc, &forced(path)).unwrap();
        let mut encoder = device.create_command_encoder(&Default::default());
        let buffers = AttentionBuffers {
            q: &qb,
            k: &kb,
            v: &vb,
            out: &ob,
            mask: None,
        };
        attention.encode(&mut encoder, &buffers).unwrap();
        encoder.copy_buffer_to_buffer(&ob, 0, &staging, 0, out_bytes);
        small.queue().submit([encoder.finish()]);
        staging
            .slice(..)
            .map_async(wgpu::MapMode::Read, |r| r.unwrap());
        device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
        let out: Vec<f64> =
            bytemuck::cast_slice::<u8, f32>(&staging.slice(..).get_mapped_range().unwrap())
                .iter()
                .map(|&x| x as f64)
                .collect();
        staging.unmap();
        let widen = |x: &[f32]| x.iter().map(|&e| e as f64).collect::<Vec<_>>();
        let reference =
            wgpu_sdpa::attention_reference(&desc, &widen(&q), &widen(&k), &widen(&v), None);
        let c = wgpu_sdpa::compare(&desc, &out, &reference, 2e-5);
        assert!(c.passed(), "{path}: {c:?}");
    }
}

#[test]
fn unfused_scores_past_the_limit_for_one_head_and_in_chunks_otherwise() {
    let Some(ctx) = ctx() else { return };
    // 48 * 200 * 4 = 38,400 B of scores a head, more than any tensor (k: 25,600 B).
    let desc = AttentionDesc::new(2, 6, 2, 48, 200, 8);
    let per_head = 48 * 200 * 4;
    let tensors = TENSORS
        .iter()
        .map(|&t| desc.required_bytes(t))
        .max()
        .unwrap();
    // Below one head's scores (but above every tensor): unfused is an error naming the scores;
    // the fused kernel, which has no scratch, serves the problem.
    let small = lowered(ctx, per_head - 4);
    assert!(tensors <= per_head - 4);
    let e = plan(small.capabilities(), &desc, &forced(Path::Unfused)).unwrap_err();
    assert_eq!(
        e,
        Error::ExceedsLimit {
            field: "unfused score matrix bytes of one head (Lq * Lk * 4)".into(),
            value: per_head,
            limit_name: LIMIT.into(),
            limit: per_head - 4,
        }
    );
    let fused = plan(small.capabilities(), &desc, &forced(Path::Fused)).unwrap();
    assert_eq!(fused.scratch_bytes(), 0);
    // Auto picks the fused kernel (q_len 48 >= 32), which needs no scratch.
    assert!(matches!(
        plan(small.capabilities(), &desc, &PlanOptions::default())
            .unwrap()
            .kernel(),
        Kernel::Fused(_)
    ));

    // Chunks of 1, 2, 3, 5 and all 12 heads (batch 2 x 6 heads), with GQA, every mask kind and
    // both dtypes: each plan has one scratch chunk's worth of scores, at most the limit, and
    // three dispatches per chunk; each result matches the reference.
    let mut cases = Vec::new();
    let mut dtypes = vec![DType::F32];
    if ctx.capabilities().shader_f16 {
        dtypes.push(DType::F16);
    }
    for heads_per_chunk in [1u64, 2, 3, 5, 12] {
        let limit = per_head * heads_per_chunk + 4;
        let small = lowered(ctx, limit.max(tensors));
        let masks = [
            Mask::None,
            Mask::Causal(CausalAlignment::BottomRight),
            Mask::Causal(CausalAlignment::TopLeft),
            Mask::Boolean(MaskLayout::dense(true, false, 6, 48, 200)),
            Mask::Additive(MaskLayout::dense(false, false, 6, 48, 200)),
            Mask::Additive(MaskLayout {
                offset: 3,
                batch_stride: 0,
                head_stride: 200,
                q_stride: 0,
            }),
        ];
        for mask in masks {
            for &dtype in &dtypes {
                let desc = desc.clone().with_dtype(dtype).with_mask(mask);
                let p = plan(small.capabilities(), &desc, &forced(Path::Unfused)).unwrap();
                let chunk = heads_per_chunk.min(12);
                let chunks = 12u64.div_ceil(chunk);
                assert_eq!(p.kernel(), Kernel::Unfused);
                assert_eq!(p.scratch_bytes(), chunk * per_head, "{p}");
                assert!(p.scratch_bytes() <= small.capabilities().max_storage_binding_bytes);
                assert_eq!(p.dispatches().len() as u64, 3 * chunks, "{p}");
                let case = CheckCase::new(
                    format!("unfused {dtype} {} chunks of {chunk}", mask.name()),
                    desc,
                    Path::Unfused,
                );
                cases.push((small.clone(), case));
            }
        }
    }
    let mut failures = Vec::new();
    for (i, (small, case)) in cases.iter().enumerate() {
        match run_case(small, case, 77 + i as u64) {
            Ok(o) if o.comparison.passed() => {}
            Ok(o) => failures.push(format!("{}: {:?}", case.name, o.comparison)),
            Err(e) => failures.push(format!("{}: {e}", case.name)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("{} chunked unfused cases match the reference", cases.len());
}
