//! `sdpa`: inspect the adapter, check correctness, run attention on safetensors files, benchmark.
//! Errors print one line and exit with status 2; a failed check exits with 1.

mod bench;
mod check;
mod info;
mod run;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "sdpa",
    version,
    about = "Scaled dot-product attention on wgpu: info, check, run, bench"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Adapters, backend, features, limits, cooperative-matrix configurations, and the kernel the
    /// planner picks for typical shapes.
    Info,
    /// The built-in correctness matrix against the f64 CPU reference on this adapter.
    Check(check::Args),
    /// Attention on tensors from a safetensors file (q, k, v, optional mask), written to another.
    Run(run::Args),
    /// The seed's benchmark table: unfused against fused, GPU timestamps.
    Bench(bench::Args),
}

/// The default adapter's context, keeping wgpu's shader runtime checks if asked to.
fn context(runtime_checks: bool) -> wgpu_sdpa::Result<wgpu_sdpa::Context> {
    let ctx = wgpu_sdpa::Context::headless()?;
    Ok(if runtime_checks {
        ctx.with_runtime_checks(true)
    } else {
        ctx
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info => info::main(),
        Command::Check(args) => check::main(&args),
        Command::Run(args) => run::main(&args),
        Command::Bench(args) => bench::main(&args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("sdpa: error: {e}");
            ExitCode::from(2)
        }
    }
}
