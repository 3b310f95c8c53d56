//! `sdpa run`.

use std::path::PathBuf;
use std::process::ExitCode;

use wgpu_sdpa::tensor_file::{read_run_inputs, write_tensor, HostTensor};
use wgpu_sdpa::{Attention, CausalAlignment, Context, Error, HostMask, Path, Result};

#[derive(clap::Args)]
pub struct Args {
    /// Safetensors file with q [B,Hq,Lq,D], k [B,Hkv,Lk,D], v [B,Hkv,Lk,Dv] (F32 or F16, all the
    /// same) and optionally mask (BOOL or the inputs' dtype, broadcastable to [B,Hq,Lq,Lk]).
    #[arg(long)]
    input: PathBuf,
    /// Where to write `out` [B,Hq,Lq,Dv] in the inputs' dtype.
    #[arg(long)]
    output: PathBuf,
    /// Causal mask, bottom-right aligned (the library default).
    #[arg(long)]
    causal: bool,
    /// Causal mask, top-left aligned (PyTorch's is_causal=True).
    #[arg(long, conflicts_with = "causal")]
    causal_top_left: bool,
    /// Scale of q·k (default 1/sqrt(head_dim)).
    #[arg(long, allow_negative_numbers = true)]
    scale: Option<f32>,
    /// Which kernel: auto, fused, unfused or vector.
    #[arg(long, default_value = "auto")]
    path: Path,
    /// Seconds to wait for the GPU before giving up with a timeout error (exit 2); by default
    /// as long as the work takes.
    #[arg(long, allow_negative_numbers = true)]
    timeout: Option<f64>,
}

pub fn main(args: &Args) -> Result<ExitCode> {
    let io_error = |path: &std::path::Path, e: std::io::Error| Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    let bytes = std::fs::read(&args.input).map_err(|e| io_error(&args.input, e))?;
    let causal = if args.causal {
        Some(CausalAlignment::BottomRight)
    } else if args.causal_top_left {
        Some(CausalAlignment::TopLeft)
    } else {
        None
    };
    let timeout = args
        .timeout
        .map(|t| {
            std::time::Duration::try_from_secs_f64(t)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or_else(|| {
                    Error::invalid("--timeout", t, "must be a positive number of seconds")
                })
        })
        .transpose()?;
    let inputs = read_run_inputs(&bytes, causal, args.scale)?;
    let ctx = Context::headless()?;
    ctx.set_wait_timeout(timeout);
    let options = wgpu_sdpa::PlanOptions {
        path: args.path,
        ..ctx.plan_options()
    };
    let attention = Attention::with_options(&ctx, &inputs.desc, &options)?;
    eprintln!("{}: {}", inputs.desc, attention.plan());
    let out = match (&inputs.q, &inputs.k, &inputs.v) {
        (HostTensor::F32(q), HostTensor::F32(k), HostTensor::F32(v)) => {
            let mask = match &inputs.mask {
                Some(HostTensor::Bool(m)) => Some(HostMask::Boolean(m)),
                Some(HostTensor::F32(m)) => Some(HostMask::Additive(m.as_slice())),
                _ => None,
            };
            HostTensor::F32(attention.run(q, k, v, mask)?)
        }
        (HostTensor::F16(q), HostTensor::F16(k), HostTensor::F16(v)) => {
            let mask = match &inputs.mask {
                Some(HostTensor::Bool(m)) => Some(HostMask::Boolean(m)),
                Some(HostTensor::F16(m)) => Some(HostMask::Additive(m.as_slice())),
                _ => None,
            };
            HostTensor::F16(attention.run(q, k, v, mask)?)
        }
        _ => unreachable!("read_run_inputs checks that q, k and v share a float dtype"),
    };
    let d = &inputs.desc;
    let shape = [d.batch, d.q_heads, d.q_len, d.v_head_dim].map(|x| x as usize);
    let file = write_tensor("out", &shape, &out)?;
    std::fs::write(&args.output, file).map_err(|e| io_error(&args.output, e))?;
    Ok(ExitCode::SUCCESS)
}
