//! `sdpa info`.

use std::process::ExitCode;

use wgpu_sdpa::{AttentionDesc, CausalAlignment, Context, DType, Mask, Result};

pub fn main() -> Result<ExitCode> {
    let instance = wgpu_sdpa::context::instance();
    println!("adapters:");
    for adapter in pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all())) {
        let i = adapter.get_info();
        println!(
            "  {} ({:?}, {:?}, driver {} {})",
            i.name, i.backend, i.device_type, i.driver, i.driver_info
        );
    }
    let ctx = Context::headless()?;
    let caps = ctx.capabilities();
    println!(
        "\nselected: {} ({:?}, {:?})",
        caps.adapter_name, caps.backend, caps.device_type
    );
    println!(
        "features: shader-f16 {}, subgroups with barriers {} (size {}..{}; barriers ordering workgroup memory {}), timestamps {}",
        caps.shader_f16,
        caps.subgroups,
        caps.subgroup_min_size,
        caps.subgroup_max_size,
        caps.subgroup_sync,
        caps.timestamps
    );
    println!(
        "limits: workgroup memory {} B, invocations/workgroup {}, workgroups/dimension {}, storage binding {} B, buffer {} B",
        caps.max_workgroup_storage_bytes,
        caps.max_invocations_per_workgroup,
        caps.max_workgroups_per_dimension,
        caps.max_storage_binding_bytes,
        caps.max_buffer_bytes
    );
    if caps.compute_units > 0 {
        println!(
            "compute units: {} (the driver's count; KV splits aim at workgroups scaled from the H200's {})",
            caps.compute_units,
            wgpu_sdpa::capabilities::H200_COMPUTE_UNITS
        );
    } else {
        println!("compute units: not reported by the driver (KV splits aim at workgroups by adapter type)");
    }
    if caps.cooperative_matrix.is_empty() {
        println!(
            "cooperative matrices: none listed (or EXPERIMENTAL_COOPERATIVE_MATRIX not available)"
        );
    } else {
        println!("cooperative matrices (listed by the adapter):");
        for c in &caps.cooperative_matrix {
            println!(
                "  {}x{}x{} {:?} -> {:?}{}",
                c.m_size,
                c.n_size,
                c.k_size,
                c.ab_type,
                c.cr_type,
                if c.saturating_accumulation {
                    " (saturating)"
                } else {
                    ""
                }
            );
        }
    }
    match wgpu_sdpa::coop_probe::run(&ctx) {
        Ok(None) => {}
        Ok(Some((frag, dtype, probes))) => {
            println!(
                "cooperative-matrix probe ({frag}x{frag}, {dtype} inputs, exact integer products):"
            );
            for p in probes {
                println!(
                    "  {:<4} {} (max error {})",
                    if p.ok() { "ok" } else { "FAIL" },
                    p.name,
                    p.max_error
                );
            }
        }
        Err(e) => println!("cooperative-matrix probe: could not run: {e}"),
    }
    println!(
        "\nplans (fused threshold q_len >= {}):",
        ctx.fused_threshold()
    );
    let dtypes: &[DType] = if caps.shader_f16 {
        &[DType::F16, DType::F32]
    } else {
        &[DType::F32]
    };
    for &dtype in dtypes {
        for (what, desc) in [
            (
                "decode 1 x 4096, 32/8 heads, d128",
                AttentionDesc::new(1, 32, 8, 1, 4096, 128),
            ),
            (
                "chunk 16 x 4096, 32/8 heads, d128",
                AttentionDesc::new(1, 32, 8, 16, 4096, 128),
            ),
            (
                "chunk 128 x 16384, 32/8 heads, d128",
                AttentionDesc::new(1, 32, 8, 128, 16384, 128),
            ),
            (
                "short 16 x 16, 32 heads, d64",
                AttentionDesc::new(1, 32, 32, 16, 16, 64),
            ),
            (
                "prefill 4096, 32 heads, d64",
                AttentionDesc::new(1, 32, 32, 4096, 4096, 64),
            ),
            (
                "prefill 4096, 32 heads, d128 causal",
                AttentionDesc::new(1, 32, 32, 4096, 4096, 128)
                    .with_mask(Mask::Causal(CausalAlignment::BottomRight)),
            ),
            (
                "prefill 1024, 32 heads, d256",
                AttentionDesc::new(1, 32, 32, 1024, 1024, 256),
            ),
        ] {
            let desc = desc.with_dtype(dtype);
            match ctx.plan(&desc) {
                Ok(plan) => println!("  {dtype} {what}: {plan}"),
                Err(e) => println!("  {dtype} {what}: cannot run: {e}"),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
