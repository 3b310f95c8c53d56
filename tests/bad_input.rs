//! Bad input never panics or runs: each kind gives a typed error naming the field.

mod common;

use common::ctx;
use wgpu_sdpa::{
    plan, Attention, AttentionBuffers, AttentionDesc, Capabilities, DType, Error, HostMask, Mask,
    MaskLayout, Path, PlanOptions, Tensor, TensorLayout,
};

/// Asserts that `result` is an error whose field is `field`, and prints it (the messages are
/// part of the interface: read them in the test log).
fn assert_field<T: std::fmt::Debug>(result: wgpu_sdpa::Result<T>, field: &str) -> Error {
    let e = result.expect_err("expected an error");
    println!("{field}: {e}");
    assert_eq!(e.field(), Some(field), "wrong field in {e:?}");
    e
}

fn nvidia() -> Capabilities {
    Capabilities::nvidia_vulkan()
}

fn plan_default(caps: &Capabilities, desc: &AttentionDesc) -> wgpu_sdpa::Result<wgpu_sdpa::Plan> {
    plan(caps, desc, &PlanOptions::default())
}

#[test]
fn descriptions_that_contradict_themselves() {
    let caps = nvidia();
    let ok = AttentionDesc::new(1, 4, 2, 16, 16, 64);
    assert!(plan_default(&caps, &ok).is_ok());
    let cases: Vec<(AttentionDesc, &str)> = vec![
        (AttentionDesc::new(0, 4, 2, 16, 16, 64), "batch"),
        (AttentionDesc::new(1, 0, 2, 16, 16, 64), "q_heads"),
        (AttentionDesc::new(1, 4, 0, 16, 16, 64), "kv_heads"),
        (AttentionDesc::new(1, 4, 2, 0, 16, 64), "q_len"),
        (AttentionDesc::new(1, 4, 2, 16, 0, 64), "kv_len"),
        (AttentionDesc::new(1, 6, 4, 16, 16, 64), "q_heads"),
        (AttentionDesc::new(1, 4, 2, 16, 16, 65), "head_dim"),
        (AttentionDesc::new(1, 4, 2, 16, 16, 264), "head_dim"),
        (AttentionDesc::new(1, 4, 2, 16, 16, 0), "head_dim"),
        (ok.clone().with_v_head_dim(12), "v_head_dim"),
        (ok.clone().with_scale(f32::NAN), "scale"),
        (ok.clone().with_scale(f32::INFINITY), "scale"),
    ];
    for (desc, field) in cases {
        assert_field(plan_default(&caps, &desc), field);
    }
}

#[test]
fn layouts_that_overflow_or_overlap() {
    let caps = nvidia();
    let huge_stride = AttentionDesc::new(2, 4, 2, 16, 16, 64).with_layout(
        Tensor::K,
        TensorLayout {
            offset: 0,
            batch_stride: 1 << 33,
            head_stride: 1024,
            seq_stride: 64,
        },
    );
    assert_field(
        plan_default(&caps, &huge_stride),
        "k elements (offset + strides * extents)",
    );
    let overlapping = AttentionDesc::new(1, 4, 4, 16, 16, 64).with_layout(
        Tensor::Out,
        TensorLayout {
            offset: 0,
            batch_stride: 4 * 16 * 64,
            head_stride: 64,
            seq_stride: 32,
        },
    );
    assert_field(plan_default(&caps, &overlapping), "out.seq_stride");
    let mask_overflow =
        AttentionDesc::new(1, 4, 4, 16, 16, 64).with_mask(Mask::Boolean(MaskLayout {
            offset: u32::MAX as u64,
            batch_stride: 0,
            head_stride: 0,
            q_stride: 16,
        }));
    assert_field(
        plan_default(&caps, &mask_overflow),
        "mask elements (offset + strides * extents)",
    );
}

#[test]
fn descriptions_the_adapter_cannot_serve() {
    // f16 where the adapter has no SHADER_F16 (a browser).
    let f16 = AttentionDesc::new(1, 4, 2, 64, 64, 64).with_dtype(DType::F16);
    assert_field(
        plan_default(&Capabilities::browser_webgpu(), &f16),
        "SHADER_F16",
    );
    // A tensor past the storage binding limit (lavapipe: 128 MiB).
    let big = AttentionDesc::new(1, 64, 64, 8192, 8192, 128);
    assert_field(plan_default(&Capabilities::lavapipe(), &big), "q bytes");
    // More heads than one dispatch dimension holds: the fused grid cannot take them (the
    // unfused path runs them in chunks, so Auto still serves the problem).
    let heads = AttentionDesc::new(1, 70000, 1, 64, 64, 8);
    let fused = PlanOptions {
        path: Path::Fused,
        ..PlanOptions::default()
    };
    let e = plan(&nvidia(), &heads, &fused).unwrap_err();
    assert!(e.to_string().contains("fused workgroups along y"), "{e}");
    assert_eq!(
        plan_default(&nvidia(), &heads).unwrap().kernel(),
        wgpu_sdpa::Kernel::Unfused
    );
    // One head's unfused score matrix past the binding limit.
    let scores = AttentionDesc::new(1, 1, 1, 8192, 8192, 8);
    let unfused = PlanOptions {
        path: Path::Unfused,
        ..PlanOptions::default()
    };
    assert_field(
        plan(&Capabilities::lavapipe(), &scores, &unfused),
        "unfused score matrix bytes of one head (Lq * Lk * 4)",
    );
}

#[test]
fn forced_paths_that_cannot_serve() {
    let desc = AttentionDesc::new(1, 4, 2, 64, 64, 64);
    let vector = PlanOptions {
        path: Path::Vector,
        ..PlanOptions::default()
    };
    let e = plan(&nvidia(), &desc, &vector).unwrap_err();
    assert!(
        matches!(e, Error::PathUnavailable { ref path, .. } if path == "vector"),
        "{e}"
    );
    let bad_blocks = PlanOptions {
        path: Path::Fused,
        fused_blocks: Some((30, 64)),
        ..PlanOptions::default()
    };
    let e = plan(&nvidia(), &desc, &bad_blocks).unwrap_err();
    assert!(e.to_string().contains("fused_blocks"), "{e}");
    assert!("sideways".parse::<Path>().is_err());
}

fn storage(ctx: &wgpu_sdpa::Context, bytes: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: bytes,
        usage,
        mapped_at_creation: false,
    })
}

#[test]
fn buffers_that_do_not_fit_the_description() {
    let Some(ctx) = ctx() else { return };
    let desc = AttentionDesc::new(1, 2, 2, 8, 8, 32);
    let attention = Attention::new(ctx, &desc).unwrap();
    let usage = wgpu::BufferUsages::STORAGE;
    let bytes = desc.required_bytes(Tensor::Q);
    let (q, k, v, out) = (
        storage(ctx, bytes, usage),
        storage(ctx, bytes, usage),
        storage(ctx, bytes, usage),
        storage(ctx, bytes, usage),
    );
    let small = storage(ctx, bytes - 4, usage);
    let uniform = storage(ctx, bytes, wgpu::BufferUsages::UNIFORM);
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    let mut encode = |b: AttentionBuffers<'_>| attention.encode(&mut encoder, &b);
    let good = AttentionBuffers {
        q: &q,
        k: &k,
        v: &v,
        out: &out,
        mask: None,
    };
    assert!(encode(good).is_ok());
    assert_field(encode(AttentionBuffers { k: &small, ..good }), "k");
    assert_field(
        encode(AttentionBuffers {
            q: &uniform,
            ..good
        }),
        "q",
    );
    assert_field(encode(AttentionBuffers { out: &q, ..good }), "out");
    assert_field(
        encode(AttentionBuffers {
            mask: Some(&v),
            ..good
        }),
        "mask",
    );

    let masked = Attention::new(
        ctx,
        &desc
            .clone()
            .with_mask(Mask::Boolean(MaskLayout::dense(false, false, 2, 8, 8))),
    )
    .unwrap();
    assert_field(masked.encode(&mut encoder, &good), "mask");
}

#[test]
fn host_slices_that_do_not_fit_the_description() {
    let Some(ctx) = ctx() else { return };
    let desc = AttentionDesc::new(1, 2, 2, 8, 8, 32);
    let attention = Attention::new(ctx, &desc).unwrap();
    let n = desc.required_elements(Tensor::Q) as usize;
    let full = vec![0.5f32; n];
    let short = vec![0.5f32; n - 1];
    assert_field(attention.run(&short, &full, &full, None), "q");
    assert_field(attention.run(&full, &full, &short, None), "v");
    let halves = vec![half::f16::ONE; n];
    assert_field(attention.run(&halves, &halves, &halves, None), "dtype");
    assert_field(
        attention.run(&full, &full, &full, Some(HostMask::Boolean(&[true; 64]))),
        "mask",
    );

    let masked = Attention::new(
        ctx,
        &desc.with_mask(Mask::Additive(MaskLayout::dense(false, false, 2, 8, 8))),
    )
    .unwrap();
    assert_field(masked.run(&full, &full, &full, None), "mask");
    assert_field(
        masked.run(&full, &full, &full, Some(HostMask::Additive(&[0.0; 63]))),
        "mask",
    );
    assert!(masked
        .run(&full, &full, &full, Some(HostMask::Additive(&[0.0; 64])))
        .is_ok());
}

#[test]
fn buffers_of_sizes_that_are_not_whole_words() {
    let Some(ctx) = ctx() else { return };
    if !ctx.capabilities().shader_f16 {
        eprintln!("SKIPPED: odd-size f16 buffers (no SHADER_F16)");
        return;
    }
    // f16 q starting one element in: 2 * (1 + 256) = 514 bytes, not a whole number of words.
    let desc = AttentionDesc::new(1, 2, 2, 4, 4, 32)
        .with_dtype(DType::F16)
        .with_layout(Tensor::Q, TensorLayout::bhld(2, 4, 32).with_offset(1));
    assert_eq!(desc.required_bytes(Tensor::Q), 514);
    let attention = Attention::new(ctx, &desc).unwrap();
    let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
    let kv_bytes = desc.required_bytes(Tensor::K);
    let (k, v, out) = (
        storage(ctx, kv_bytes, usage),
        storage(ctx, kv_bytes, usage),
        storage(ctx, kv_bytes, usage | wgpu::BufferUsages::COPY_SRC),
    );
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    // Exactly 514 bytes: storage bindings are whole words, so the last element cannot be bound.
    let exact = storage(ctx, 514, usage);
    let e = assert_field(
        attention.encode(
            &mut encoder,
            &AttentionBuffers {
                q: &exact,
                k: &k,
                v: &v,
                out: &out,
                mask: None,
            },
        ),
        "q",
    );
    assert!(e.to_string().contains("4-byte words"), "{e}");
    // 518 bytes (odd, but past the last word the tensor needs): bound as 516 and computed right
    // (equal keys: every output is the V row value).
    let odd = storage(ctx, 518, usage);
    let one = half::f16::ONE;
    ctx.queue()
        .write_buffer(&odd, 0, bytemuck::cast_slice(&vec![one; 258]));
    let v_values: Vec<half::f16> = (0..kv_bytes / 2)
        .map(|i| half::f16::from_f32((i % 32) as f32 / 32.0))
        .collect();
    ctx.queue()
        .write_buffer(&v, 0, bytemuck::cast_slice(&v_values));
    attention
        .encode(
            &mut encoder,
            &AttentionBuffers {
                q: &odd,
                k: &k,
                v: &v,
                out: &out,
                mask: None,
            },
        )
        .unwrap();
    let staging = storage(
        ctx,
        desc.required_bytes(Tensor::Out),
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
    );
    encoder.copy_buffer_to_buffer(&out, 0, &staging, 0, staging.size());
    ctx.queue().submit([encoder.finish()]);
    staging
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.unwrap());
    ctx.device()
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
    let result: Vec<half::f16> =
        bytemuck::cast_slice(&staging.slice(..).get_mapped_range().unwrap()).to_vec();
    for (i, x) in result.iter().enumerate() {
        assert_eq!(x.to_f32(), (i % 32) as f32 / 32.0, "element {i}");
    }
}

#[test]
fn benchmark_copies_of_k_and_v_out_of_range() {
    let Some(ctx) = ctx() else { return };
    let shape = wgpu_sdpa::bench::decode_sweep(true)[0];
    let options = PlanOptions::default();
    for copies in [0, wgpu_sdpa::bench::MAX_KV_COPIES + 1] {
        let result = wgpu_sdpa::bench::measure_rotating(ctx, &shape, &options, 1.0, false, copies);
        let e = assert_field(result, "kv_copies");
        assert!(e.to_string().contains(&copies.to_string()), "{e}");
    }
}
