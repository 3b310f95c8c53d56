//! `cargo bench`: the seed's table on the default adapter (the same measurement as
//! `sdpa bench`; use that for options and JSON). A CPU adapter gets the reduced sweep.

use wgpu_sdpa::bench::{clock, default_sweep, measure};
use wgpu_sdpa::Context;

fn main() -> wgpu_sdpa::Result<()> {
    let ctx = Context::headless()?;
    let caps = ctx.capabilities();
    let cpu = caps.device_type == wgpu::DeviceType::Cpu;
    println!(
        "# {} ({:?}), clock {:?}",
        caps.adapter_name,
        caps.backend,
        clock(&ctx)
    );
    println!("dtype, hdim, L, heads, mask, t_unfused_ms, t_fused_ms, diff%, fused TFLOP/s");
    for shape in default_sweep(cpu) {
        let row = measure(&ctx, &shape, &ctx.plan_options(), 200.0, true);
        let fmt = |t: &wgpu_sdpa::bench::PathTiming| {
            t.ms.as_ref()
                .map(|m| format!("{m:.3}"))
                .unwrap_or_else(|e| e.clone())
        };
        println!(
            "{}, {}, {}, {}/{}, {}, {}, {}, {:.1}%, {:.2}",
            shape.dtype,
            shape.head_dim,
            shape.q_len,
            shape.q_heads,
            shape.kv_heads,
            if shape.causal { "causal" } else { "none" },
            fmt(&row.unfused),
            fmt(&row.fused),
            row.diff_percent().unwrap_or(f64::NAN),
            row.tflops(&row.fused).unwrap_or(f64::NAN),
        );
    }
    Ok(())
}
