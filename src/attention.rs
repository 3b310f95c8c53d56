//! [`Attention`]: a planned, compiled problem that records into a caller's command encoder,
//! plus the convenience call on host slices.

use crate::context::Context;
use crate::desc::{AttentionDesc, DType, Mask, Tensor};
use crate::error::{Error, GpuErrorKind, Result};
use crate::gpu_errors::ErrorScope;
use crate::params::Params;
use crate::pipelines::CompiledKernel;
use crate::planner::{plan, Plan, PlanOptions};
use crate::shader::slot;

/// A storage element type of the host-slice API: `f32` or `half::f16`.
pub trait Element: bytemuck::Pod + Send + Sync + 'static {
    /// The matching [`DType`].
    const DTYPE: DType;
    /// Widens to f64 (for references and comparisons).
    fn to_f64(self) -> f64;
    /// Rounds from f64.
    fn from_f64(x: f64) -> Self;
}

impl Element for f32 {
    const DTYPE: DType = DType::F32;
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(x: f64) -> Self {
        x as f32
    }
}

impl Element for half::f16 {
    const DTYPE: DType = DType::F16;
    fn to_f64(self) -> f64 {
        self.to_f64()
    }
    fn from_f64(x: f64) -> Self {
        half::f16::from_f64(x)
    }
}

/// A mask on the host, laid out as the description's [`Mask`] says.
#[derive(Debug, Clone, Copy)]
pub enum HostMask<'a, T> {
    /// For [`Mask::Boolean`]: `true` = attend.
    Boolean(&'a [bool]),
    /// For [`Mask::Additive`]: added to the scaled scores; `-inf` excludes.
    Additive(&'a [T]),
}

/// The caller's device buffers for one call, all from the context's device. Each needs `STORAGE`
/// usage and at least [`AttentionDesc::required_bytes`] bytes rounded up to a multiple of 4
/// (storage bindings are whole 4-byte words); `out` must not be any of the others.
#[derive(Debug, Clone, Copy)]
pub struct AttentionBuffers<'a> {
    /// Queries.
    pub q: &'a wgpu::Buffer,
    /// Keys.
    pub k: &'a wgpu::Buffer,
    /// Values.
    pub v: &'a wgpu::Buffer,
    /// The output, written.
    pub out: &'a wgpu::Buffer,
    /// The mask, when the description has a boolean or additive one.
    pub mask: Option<&'a wgpu::Buffer>,
}

/// A planned attention problem with its pipelines compiled: record it any number of times.
///
/// `Attention` is `Send + Sync`; threads may share one and each record and submit its own work.
/// The unfused kernel's score scratch buffer belongs to the `Attention`, so work recorded from
/// one `Attention` must be submitted to the context's queue (where submissions run in order).
#[derive(Debug)]
pub struct Attention {
    ctx: Context,
    plan: Plan,
    /// Each dispatch's pipeline, grid and index into `params`.
    kernels: Vec<(CompiledKernel, [u32; 3], usize)>,
    /// One uniform buffer per head chunk (one in all but the chunked unfused plans).
    params: Vec<wgpu::Buffer>,
    scratch: Option<wgpu::Buffer>,
    /// The decode split pass's arrival counters where it merges its own splits: zeros from
    /// creation (wgpu clears new buffers) and again after every call (the last split of a query
    /// group resets its counter), so work recorded from one `Attention` runs in submission order.
    arrivals: Option<wgpu::Buffer>,
}

impl Attention {
    /// Plans `desc` with the context's options (`Path::Auto`) and compiles what the plan needs.
    pub fn new(ctx: &Context, desc: &AttentionDesc) -> Result<Self> {
        Self::with_options(ctx, desc, &ctx.plan_options())
    }

    /// Plans `desc` with explicit options (e.g. a forced [`crate::Path`]) and compiles.
    pub fn with_options(
        ctx: &Context,
        desc: &AttentionDesc,
        options: &PlanOptions,
    ) -> Result<Self> {
        let plan = plan(ctx.capabilities(), desc, options)?;
        ctx.check_not_lost()?;
        let device = ctx.device();
        let scope = ErrorScope::push(device);
        let base = Params::new(desc);
        // One uniform buffer per distinct set of params (head chunks, KV splits).
        let mut params: Vec<(Params, Result<wgpu::Buffer>)> = Vec::new();
        let mut kernels = Vec::new();
        for d in plan.dispatches() {
            let kernel = ctx.kernel(&d.variant)?;
            let mut these = base.for_heads(d.head_base, d.head_count);
            if let Some((splits, split_len)) = d.splits {
                these = these.with_splits(splits, split_len);
            }
            let index = match params.iter().position(|(p, _)| *p == these) {
                Some(i) => i,
                None => {
                    let buffer = upload(
                        device,
                        "wgpu-sdpa params",
                        bytemuck::bytes_of(&these),
                        wgpu::BufferUsages::UNIFORM,
                    );
                    params.push((these, buffer));
                    params.len() - 1
                }
            };
            kernels.push((kernel, d.workgroups, index));
        }
        // Storage the plan needs of its own, where it needs any.
        let storage = |label, size| {
            (size > 0).then(|| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size,
                    usage: wgpu::BufferUsages::STORAGE,
                    mapped_at_creation: false,
                })
            })
        };
        let scratch = storage("wgpu-sdpa scores", plan.scratch_bytes());
        let arrivals = storage("wgpu-sdpa arrivals", plan.arrival_bytes());
        if let Some(e) = scope.pop() {
            return Err(e);
        }
        let params = params
            .into_iter()
            .map(|(_, b)| b.map_err(|e| lost_or(ctx, e)))
            .collect::<Result<_>>()?;
        Ok(Attention {
            ctx: ctx.clone(),
            plan,
            kernels,
            params,
            scratch,
            arrivals,
        })
    }

    /// The plan: which kernel, which tiles, and why.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The description.
    pub fn desc(&self) -> &AttentionDesc {
        self.plan.desc()
    }

    fn check_buffers(&self, buffers: &AttentionBuffers<'_>) -> Result<()> {
        let desc = self.desc();
        let named = [
            (Tensor::Q, Some(buffers.q)),
            (Tensor::K, Some(buffers.k)),
            (Tensor::V, Some(buffers.v)),
            (Tensor::Out, Some(buffers.out)),
            (Tensor::Mask, buffers.mask),
        ];
        for (tensor, buffer) in named {
            let needs = tensor != Tensor::Mask || desc.mask.layout().is_some();
            let Some(buffer) = buffer else {
                if needs {
                    return Err(Error::buffer(
                        tensor.name(),
                        format!("the {} mask needs a buffer", desc.mask.name()),
                    ));
                }
                continue;
            };
            if !needs {
                return Err(Error::buffer(
                    "mask",
                    format!(
                        "a buffer was given but the description's mask is {}",
                        desc.mask.name()
                    ),
                ));
            }
            // Storage bindings are whole 4-byte words (an f16 or boolean tensor with an odd
            // number of bytes still needs its last word).
            let required = desc.required_bytes(tensor).next_multiple_of(4);
            if buffer.size() < required {
                return Err(Error::buffer(
                    tensor.name(),
                    format!(
                        "holds {} bytes, the shape and strides need {} ({required} in whole 4-byte words)",
                        buffer.size(),
                        desc.required_bytes(tensor)
                    ),
                ));
            }
            if !buffer.usage().contains(wgpu::BufferUsages::STORAGE) {
                return Err(Error::buffer(
                    tensor.name(),
                    "lacks wgpu::BufferUsages::STORAGE",
                ));
            }
            if tensor != Tensor::Out && buffer == buffers.out {
                return Err(Error::buffer(
                    "out",
                    format!(
                        "is the same buffer as {}: the output must not alias an input",
                        tensor.name()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// A binding of the buffer's first `min(size, max_storage_buffer_binding_size)` bytes,
    /// rounded down to whole 4-byte words as wgpu requires of storage bindings (enough: every
    /// tensor's required bytes, rounded up to words, were checked against both).
    fn binding<'b>(&self, buffer: &'b wgpu::Buffer) -> wgpu::BindingResource<'b> {
        let limit = self.ctx.capabilities().max_storage_binding_bytes;
        let size = wgpu::BufferSize::new(buffer.size().min(limit) / 4 * 4);
        wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer,
            offset: 0,
            size,
        })
    }

    /// Records the attention into the caller's encoder: one compute pass, no submit, no copy.
    pub fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        buffers: &AttentionBuffers<'_>,
    ) -> Result<()> {
        self.encode_with_timestamps(encoder, buffers, None)
    }

    /// [`Attention::encode`] with timestamp writes at the beginning and end of the pass
    /// (`TIMESTAMP_QUERY`), as the benchmark uses.
    pub fn encode_with_timestamps(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        buffers: &AttentionBuffers<'_>,
        timestamp_writes: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) -> Result<()> {
        let bind_groups = self.bind_groups(buffers)?;
        let scope = ErrorScope::push(self.ctx.device());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("wgpu-sdpa attention"),
                timestamp_writes,
            });
            self.record(&mut pass, &bind_groups);
        }
        match scope.pop() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Records the attention's dispatches into the caller's compute pass instead of a pass of
    /// its own, so that several calls (the layers of a model) and the caller's own kernels can
    /// share one pass: on the H200 under Vulkan a compute pass of its own cost each call ~5 us
    /// more than a dispatch in a shared pass (BENCHMARKS.md, thirty-first session: empty
    /// dispatches back to back took 7.5 us a call a pass each, 2.1 in one pass), and more for
    /// kernels with more code to fetch again while they stream from memory (thirty-seventh
    /// session: issue #5's 16384-key decode call 31.2 us by its own pass's timestamps, 25.2 in
    /// one pass). wgpu orders the dispatches of one pass as it orders passes, by their buffers'
    /// uses: a dispatch that reads what an earlier one wrote (this call's output, the next
    /// layer's input) waits for it.
    ///
    /// The buffers are checked as [`Attention::encode`] checks them, before anything is
    /// recorded; an error wgpu finds in the pass itself is the pass's, reported where the
    /// caller's encoder is finished.
    pub fn encode_in_pass(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        buffers: &AttentionBuffers<'_>,
    ) -> Result<()> {
        let bind_groups = self.bind_groups(buffers)?;
        self.record(pass, &bind_groups);
        Ok(())
    }

    /// The bind groups of the plan's kernels on `buffers`, after checking them. A buffer wgpu
    /// rejects (another device's, a destroyed one) fails here, before anything is recorded: the
    /// caller's encoder or pass stays valid.
    fn bind_groups(&self, buffers: &AttentionBuffers<'_>) -> Result<Vec<wgpu::BindGroup>> {
        self.check_buffers(buffers)?;
        self.ctx.check_not_lost()?;
        let device = self.ctx.device();
        let scope = ErrorScope::push(device);
        let mask = buffers.mask.unwrap_or(self.ctx.empty_mask());
        let bind_groups: Vec<wgpu::BindGroup> = self
            .kernels
            .iter()
            .map(|(kernel, _, params)| {
                let entries: Vec<wgpu::BindGroupEntry> = kernel
                    .entry
                    .bindings()
                    .iter()
                    .map(|&(binding, _)| {
                        let resource = match binding {
                            slot::PARAMS => self.params[*params].as_entire_binding(),
                            slot::Q => self.binding(buffers.q),
                            slot::K => self.binding(buffers.k),
                            slot::V => self.binding(buffers.v),
                            slot::OUT => self.binding(buffers.out),
                            slot::MASK => self.binding(mask),
                            slot::ARRIVALS => self
                                .arrivals
                                .as_ref()
                                .expect("plans with an arrivals slot have counters")
                                .as_entire_binding(),
                            _ => self
                                .scratch
                                .as_ref()
                                .expect("plans with a scratch slot have a scratch buffer")
                                .as_entire_binding(),
                        };
                        wgpu::BindGroupEntry { binding, resource }
                    })
                    .collect();
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some(kernel.entry.name()),
                    layout: &kernel.layout,
                    entries: &entries,
                })
            })
            .collect();
        match scope.pop() {
            Some(e) => Err(e),
            None => Ok(bind_groups),
        }
    }

    /// The plan's dispatches, in order, into `pass`.
    fn record(&self, pass: &mut wgpu::ComputePass<'_>, bind_groups: &[wgpu::BindGroup]) {
        for ((kernel, [x, y, z], _), bind_group) in self.kernels.iter().zip(bind_groups) {
            pass.set_pipeline(&kernel.pipeline);
            pass.set_bind_group(0, bind_group, &[]);
            pass.dispatch_workgroups(*x, *y, *z);
        }
    }

    /// Uploads host slices, runs, and reads the output back (blocking). The slices are laid out
    /// as the description says (at least [`AttentionDesc::required_elements`] each); the result
    /// has `required_elements(Tensor::Out)` elements, those the layout does not touch zero.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn run<T: Element>(
        &self,
        q: &[T],
        k: &[T],
        v: &[T],
        mask: Option<HostMask<'_, T>>,
    ) -> Result<Vec<T>> {
        pollster::block_on(self.run_async(q, k, v, mask))
    }

    /// [`Attention::run`] as a future (the form a browser needs).
    pub async fn run_async<T: Element>(
        &self,
        q: &[T],
        k: &[T],
        v: &[T],
        mask: Option<HostMask<'_, T>>,
    ) -> Result<Vec<T>> {
        let desc = self.desc();
        if T::DTYPE != desc.dtype {
            return Err(Error::invalid(
                "dtype",
                T::DTYPE,
                format!(
                    "the host slices must match the description's dtype {}",
                    desc.dtype
                ),
            ));
        }
        for (tensor, len) in [
            (Tensor::Q, q.len()),
            (Tensor::K, k.len()),
            (Tensor::V, v.len()),
        ] {
            let required = desc.required_elements(tensor);
            if (len as u64) < required {
                return Err(Error::buffer(
                    tensor.name(),
                    format!("host slice has {len} elements, the shape and strides need {required}"),
                ));
            }
        }
        // Only the elements the layouts touch are uploaded: a longer slice (a whole KV cache,
        // say) costs nothing extra and cannot push a buffer past the device's limits.
        let needed = |tensor: Tensor| desc.required_elements(tensor) as usize;
        let (q, k, v) = (
            &q[..needed(Tensor::Q)],
            &k[..needed(Tensor::K)],
            &v[..needed(Tensor::V)],
        );
        let n_mask = needed(Tensor::Mask);
        let mask_bytes: Option<Vec<u8>> = match (&desc.mask, mask) {
            (Mask::Boolean(_), Some(HostMask::Boolean(m))) => {
                Some(m.iter().take(n_mask).map(|&b| b as u8).collect())
            }
            (Mask::Additive(_), Some(HostMask::Additive(m))) => {
                Some(bytemuck::cast_slice(&m[..n_mask.min(m.len())]).to_vec())
            }
            (Mask::None | Mask::Causal(_), None) => None,
            (kind, given) => {
                return Err(Error::buffer(
                    "mask",
                    format!(
                        "the description's mask is {} but the host mask is {}",
                        kind.name(),
                        match given {
                            None => "missing",
                            Some(HostMask::Boolean(_)) => "boolean",
                            Some(HostMask::Additive(_)) => "additive",
                        }
                    ),
                ))
            }
        };
        if let Some(bytes) = &mask_bytes {
            let required = desc.required_bytes(Tensor::Mask);
            if (bytes.len() as u64) < required {
                return Err(Error::buffer(
                    "mask",
                    format!(
                        "host slice has {} elements, the shape and strides need {}",
                        bytes.len() as u64 / desc.element_bytes(Tensor::Mask),
                        desc.required_elements(Tensor::Mask)
                    ),
                ));
            }
        }

        let out_bytes = desc.required_bytes(Tensor::Out).next_multiple_of(4);
        // Each buffer against the device's largest buffer (the planner checked the bindings).
        let max_buffer = self.ctx.capabilities().max_buffer_bytes;
        for (name, bytes) in [
            ("q", std::mem::size_of_val(q) as u64),
            ("k", std::mem::size_of_val(k) as u64),
            ("v", std::mem::size_of_val(v) as u64),
            ("mask", mask_bytes.as_ref().map_or(0, |m| m.len() as u64)),
            ("out", out_bytes),
        ] {
            let bytes = bytes.next_multiple_of(4);
            if bytes > max_buffer {
                return Err(Error::limit(
                    format!("{name} buffer bytes"),
                    bytes,
                    "max_buffer_size",
                    max_buffer,
                ));
            }
        }

        self.ctx.check_not_lost()?;
        let device = self.ctx.device();
        const STORAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE;
        let scope = ErrorScope::push(device);
        let q_buf = upload(device, "q", bytemuck::cast_slice(q), STORAGE);
        let k_buf = upload(device, "k", bytemuck::cast_slice(k), STORAGE);
        let v_buf = upload(device, "v", bytemuck::cast_slice(v), STORAGE);
        let mask_buf = mask_bytes
            .as_deref()
            .map(|b| upload(device, "mask", b, STORAGE));
        let out_buf = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("out"),
            size: out_bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let readback = readback_buffer(device, "readback", out_bytes);
        if let Some(e) = scope.pop() {
            return Err(e);
        }
        // A buffer that could not be mapped without an error in the scopes: the device is lost
        // (wgpu reports device loss through its callback, not through error scopes).
        let lost = |e| lost_or(&self.ctx, e);
        let (q_buf, k_buf, v_buf) = (
            q_buf.map_err(lost)?,
            k_buf.map_err(lost)?,
            v_buf.map_err(lost)?,
        );
        let mask_buf = mask_buf.transpose().map_err(lost)?;
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("wgpu-sdpa run"),
        });
        self.encode(
            &mut encoder,
            &AttentionBuffers {
                q: &q_buf,
                k: &k_buf,
                v: &v_buf,
                out: &out_buf,
                mask: mask_buf.as_ref(),
            },
        )?;
        encoder.copy_buffer_to_buffer(&out_buf, 0, &readback, 0, out_bytes);
        let scope = ErrorScope::push(device);
        self.ctx.queue().submit([encoder.finish()]);
        if let Some(e) = scope.pop() {
            return Err(e);
        }
        let bytes = read_buffer(device, &readback, self.ctx.wait_timeout())
            .await
            .map_err(|e| lost_or(&self.ctx, e))?;
        let n = desc.required_elements(Tensor::Out) as usize;
        Ok(bytemuck::pod_collect_to_vec::<u8, T>(
            &bytes[..n * std::mem::size_of::<T>()],
        ))
    }
}

/// `e`, or the device-lost error with wgpu's reason where the context knows the device is lost
/// (a poll lets wgpu run the device-lost callback first).
fn lost_or(ctx: &Context, e: Error) -> Error {
    #[cfg(not(target_arch = "wasm32"))]
    let _ = ctx.device().poll(wgpu::PollType::Poll);
    ctx.check_not_lost().err().unwrap_or(e)
}

/// A buffer holding `bytes` (padded to whole 4-byte words), as
/// `DeviceExt::create_buffer_init` makes one, except that a buffer whose creation failed (out of
/// memory, over a limit, a lost device) is an error here, not a panic. The reason of a failed
/// creation is in the caller's error scope; a lost device leaves none, hence the error returned.
fn upload(
    device: &wgpu::Device,
    label: &str,
    bytes: &[u8],
    usage: wgpu::BufferUsages,
) -> Result<wgpu::Buffer> {
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: (bytes.len() as u64).next_multiple_of(4).max(4),
        usage,
        mapped_at_creation: true,
    });
    match buffer.get_mapped_range_mut(..) {
        Ok(mut view) => view.slice(..bytes.len()).copy_from_slice(bytes),
        Err(e) => {
            return Err(Error::Gpu {
                kind: GpuErrorKind::DeviceLost,
                message: format!("uploading {label}: {e}"),
            })
        }
    }
    buffer.unmap();
    Ok(buffer)
}

/// A buffer of `size` bytes to copy GPU results into and read back with [`read_buffer`].
pub(crate) fn readback_buffer(device: &wgpu::Device, label: &str, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// Maps a `MAP_READ` buffer and copies its contents out (natively after a blocking poll of at
/// most `timeout`, in a browser when the event loop delivers the map callback).
pub(crate) async fn read_buffer(
    device: &wgpu::Device,
    buffer: &wgpu::Buffer,
    timeout: Option<std::time::Duration>,
) -> Result<Vec<u8>> {
    let slice = buffer.slice(..);
    let (sender, receiver) = futures_channel::oneshot::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = sender.send(r);
    });
    #[cfg(not(target_arch = "wasm32"))]
    device
        .poll(wgpu::PollType::Wait {
            submission_index: None,
            timeout,
        })
        .map_err(|e| match e {
            wgpu::PollError::Timeout => Error::Gpu {
                kind: GpuErrorKind::Timeout,
                message: format!(
                    "the GPU did not finish within the context's wait timeout of {:?}; the work \
                     goes on, and the next call on the queue waits behind it",
                    timeout.unwrap_or_default()
                ),
            },
            e => Error::Gpu {
                kind: GpuErrorKind::DeviceLost,
                message: e.to_string(),
            },
        })?;
    #[cfg(target_arch = "wasm32")]
    let _ = (device, timeout);
    match receiver.await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            return Err(Error::Gpu {
                kind: GpuErrorKind::Map,
                message: e.to_string(),
            })
        }
        Err(_) => {
            return Err(Error::Gpu {
                kind: GpuErrorKind::DeviceLost,
                message: "the buffer map callback was dropped".into(),
            })
        }
    }
    let bytes = slice
        .get_mapped_range()
        .map_err(|e| Error::Gpu {
            kind: GpuErrorKind::Map,
            message: e.to_string(),
        })?
        .to_vec();
    buffer.unmap();
    Ok(bytes)
}
