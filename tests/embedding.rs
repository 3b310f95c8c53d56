//! The library inside a caller's wgpu program, and on contexts whose stated limits are lower
//! than the adapter's: the unfused path splitting heads over several score chunks, and fused
//! tiles fitted to a browser's 16 KiB of workgroup memory, both against the f64 reference.

mod common;

use common::{assert_cases, ctx};
use wgpu::util::DeviceExt;
use wgpu_sdpa::check::CheckCase;
use wgpu_sdpa::{
    attention_reference, compare, Attention, AttentionBuffers, AttentionDesc, Context, Kernel,
    Mask, MaskLayout, Path, Tensor,
};

fn lowered(ctx: &Context, edit: impl FnOnce(&mut wgpu_sdpa::Capabilities)) -> Context {
    let mut caps = ctx.capabilities().clone();
    edit(&mut caps);
    Context::from_parts(ctx.device().clone(), ctx.queue().clone(), caps)
}

#[test]
fn records_into_the_callers_encoder_on_the_callers_buffers() {
    let Some(shared) = ctx() else { return };
    // The caller's own device (a second one on the same adapter would do; this one is theirs).
    let ctx = Context::from_parts(
        shared.device().clone(),
        shared.queue().clone(),
        shared.capabilities().clone(),
    );
    let device = ctx.device();
    let desc = AttentionDesc::new(1, 4, 2, 40, 40, 32);
    let attention = Attention::new(&ctx, &desc).unwrap();
    let values = |t: Tensor, seed: usize| -> Vec<f32> {
        (0..desc.required_elements(t) as usize)
            .map(|i| ((i * 7919 + seed) % 101) as f32 / 202.0)
            .collect()
    };
    let (q, k, v) = (
        values(Tensor::Q, 1),
        values(Tensor::K, 2),
        values(Tensor::V, 3),
    );
    let upload = |data: &[f32]| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents: bytemuck::cast_slice(data),
            usage: wgpu::BufferUsages::STORAGE,
        })
    };
    let (qb, kb, vb) = (upload(&q), upload(&k), upload(&v));
    let out = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: desc.required_bytes(Tensor::Out),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: out.size(),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    let buffers = AttentionBuffers {
        q: &qb,
        k: &kb,
        v: &vb,
        out: &out,
        mask: None,
    };
    // Recording submits nothing: the output is still zero until the caller submits.
    attention.encode(&mut encoder, &buffers).unwrap();
    encoder.copy_buffer_to_buffer(&out, 0, &staging, 0, out.size());
    ctx.queue().submit([encoder.finish()]);
    staging
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.unwrap());
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let result: Vec<f64> =
        bytemuck::cast_slice::<u8, f32>(&staging.slice(..).get_mapped_range().unwrap())
            .iter()
            .map(|&x| x as f64)
            .collect();
    let widen = |x: &[f32]| x.iter().map(|&e| e as f64).collect::<Vec<_>>();
    let reference = attention_reference(&desc, &widen(&q), &widen(&k), &widen(&v), None);
    let c = compare(&desc, &result, &reference, 2e-5);
    assert!(c.passed(), "{c:?}");
}

#[test]
fn records_several_calls_into_the_callers_compute_pass() {
    let Some(ctx) = ctx() else { return };
    let device = ctx.device();
    // Decode calls (q_len 1, 8/2 heads, 300 keys, d64, f32) in three splits: merged in pass
    // where the adapter allows it, and by the reduce pass (a second dispatch).
    let desc = AttentionDesc::new(1, 8, 2, 1, 300, 64);
    let with = |in_pass: Option<bool>| {
        let options = wgpu_sdpa::PlanOptions {
            path: Path::Vector,
            decode_splits: Some(3),
            decode_merge_in_pass: in_pass,
            ..ctx.plan_options()
        };
        Attention::with_options(ctx, &desc, &options).unwrap()
    };
    let (merged, reduced) = (with(None), with(Some(false)));
    assert_eq!(reduced.plan().dispatches().len(), 2, "{}", reduced.plan());
    if merged.plan().dispatches().len() != 1 {
        println!("note: this adapter merges no splits in pass; both calls take the reduce pass");
    }
    let values = |t: Tensor, seed: usize| -> Vec<f32> {
        (0..desc.required_elements(t) as usize)
            .map(|i| ((i * 7919 + seed) % 101) as f32 / 50.0 - 1.0)
            .collect()
    };
    let storage = |data: &[f32]| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents: bytemuck::cast_slice(data),
            usage: wgpu::BufferUsages::STORAGE,
        })
    };
    let (q, k, v, k2, v2) = (
        values(Tensor::Q, 1),
        values(Tensor::K, 2),
        values(Tensor::V, 3),
        values(Tensor::K, 4),
        values(Tensor::V, 5),
    );
    let (qb, kb, vb, k2b, v2b) = (
        storage(&q),
        storage(&k),
        storage(&v),
        storage(&k2),
        storage(&v2),
    );
    let outs: Vec<wgpu::Buffer> = (0..3)
        .map(|_| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: desc.required_bytes(Tensor::Out),
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        })
        .collect();
    // One pass, each call's queries the call before's output (the out layout is Q's): the
    // second call must see the first one's output, and the third the second's.
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        for (attention, q, k, v, out) in [
            (&merged, &qb, &kb, &vb, &outs[0]),
            (&merged, &outs[0], &k2b, &v2b, &outs[1]),
            (&reduced, &outs[1], &kb, &vb, &outs[2]),
        ] {
            let buffers = AttentionBuffers {
                q,
                k,
                v,
                out,
                mask: None,
            };
            attention.encode_in_pass(&mut pass, &buffers).unwrap();
        }
    }
    let staging: Vec<wgpu::Buffer> = outs
        .iter()
        .map(|out| {
            let s = device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: out.size(),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            encoder.copy_buffer_to_buffer(out, 0, &s, 0, out.size());
            s
        })
        .collect();
    ctx.queue().submit([encoder.finish()]);
    for s in &staging {
        s.slice(..).map_async(wgpu::MapMode::Read, |r| r.unwrap());
    }
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let results: Vec<Vec<f64>> = staging
        .iter()
        .map(|s| {
            bytemuck::cast_slice::<u8, f32>(&s.slice(..).get_mapped_range().unwrap())
                .iter()
                .map(|&x| x as f64)
                .collect()
        })
        .collect();
    let widen = |x: &[f32]| x.iter().map(|&e| e as f64).collect::<Vec<_>>();
    // Each call against the f64 reference on the queries it was given (the GPU's output of the
    // call before).
    for (i, (q, k, v)) in [
        (widen(&q), widen(&k), widen(&v)),
        (results[0].clone(), widen(&k2), widen(&v2)),
        (results[1].clone(), widen(&k), widen(&v)),
    ]
    .into_iter()
    .enumerate()
    {
        let reference = attention_reference(&desc, &q, &k, &v, None);
        let c = compare(&desc, &results[i], &reference, 2e-5);
        assert!(c.passed(), "call {i}: {c:?}");
    }
}

#[test]
fn unfused_heads_in_chunks_when_the_scores_exceed_one_binding() {
    let Some(ctx) = ctx() else { return };
    // 64 KiB bindings: each head's 80x90 f32 scores take 28.1 KiB, so two heads per chunk.
    let small = lowered(ctx, |c| c.max_storage_binding_bytes = 64 * 1024);
    let desc = AttentionDesc::new(2, 3, 1, 80, 90, 32)
        .with_mask(Mask::Additive(MaskLayout::dense(true, false, 3, 80, 90)));
    let plan = small.plan(&desc.clone().with_mask(Mask::None)).unwrap();
    let options = wgpu_sdpa::PlanOptions {
        path: Path::Unfused,
        ..small.plan_options()
    };
    let unfused = wgpu_sdpa::plan(small.capabilities(), &desc, &options).unwrap();
    assert_eq!(
        unfused.dispatches().len(),
        9,
        "6 heads in chunks of 2: {unfused}"
    );
    assert!(unfused.scratch_bytes() <= 64 * 1024);
    assert!(matches!(plan.kernel(), Kernel::Fused(_)));
    assert_cases(
        &small,
        &[CheckCase::new(
            "unfused in head chunks",
            desc,
            Path::Unfused,
        )],
    );
}

#[test]
fn fused_tiles_for_16_and_32_kib_of_workgroup_memory() {
    let Some(ctx) = ctx() else { return };
    for kib in [16, 32] {
        let small = lowered(ctx, |c| {
            c.max_workgroup_storage_bytes = c.max_workgroup_storage_bytes.min(kib * 1024);
            c.max_invocations_per_workgroup = c.max_invocations_per_workgroup.min(256);
        });
        let mut cases = Vec::new();
        for d in [64, 128, 256] {
            let desc = AttentionDesc::new(1, 2, 1, 40, 70, d);
            let Kernel::Fused(t) = small.plan(&desc).unwrap().kernel() else {
                panic!("{kib} KiB, d{d}: not fused")
            };
            println!("{kib} KiB, d{d}: {t:?}");
            assert!(t.workgroup_bytes <= kib * 1024);
            cases.push(CheckCase::new(format!("{kib} KiB d{d}"), desc, Path::Fused));
        }
        assert_cases(&small, &cases);
    }
}

#[test]
fn a_context_claiming_a_feature_the_device_lacks_gives_a_typed_error() {
    let Some(shared) = ctx() else { return };
    if !shared.capabilities().shader_f16 {
        eprintln!("SKIPPED: the adapter has no SHADER_F16 to leave out");
        return;
    }
    // A device made without SHADER_F16, described as having it: compiling an f16 kernel fails
    // inside the library's error scopes, which must come back as an error (not a wgpu panic).
    let instance = wgpu_sdpa::context::instance();
    let adapter =
        pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
            .unwrap();
    let (device, queue) =
        pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default())).unwrap();
    assert!(!device.features().contains(wgpu::Features::SHADER_F16));
    let ctx = Context::from_parts(device, queue, shared.capabilities().clone());
    let desc = AttentionDesc::new(1, 2, 2, 40, 40, 32).with_dtype(wgpu_sdpa::DType::F16);
    for path in [Path::Unfused, Path::Fused, Path::Vector] {
        let desc = if path == Path::Vector {
            desc.clone().with_mask(Mask::None)
        } else {
            desc.clone()
        };
        let desc = if path == Path::Vector {
            AttentionDesc { q_len: 1, ..desc }
        } else {
            desc
        };
        let options = wgpu_sdpa::PlanOptions {
            path,
            ..ctx.plan_options()
        };
        let e = Attention::with_options(&ctx, &desc, &options).unwrap_err();
        println!("{path}: {e}");
        assert!(matches!(e, wgpu_sdpa::Error::Gpu { .. }), "{path}: {e:?}");
    }
}
