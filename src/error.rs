//! The one error type of the crate.
//!
//! Every rejection names the field it is about, the value that was given and the limit or rule
//! it broke, so a caller (or the `sdpa` tool, which prints it and exits 2) can say exactly what
//! to change.

use std::fmt;

/// A `Result` whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in this crate.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A field of the problem description is out of its allowed range or inconsistent.
    #[error("invalid {field} = {value}: {rule}")]
    InvalidDesc {
        /// The field, e.g. `"q_heads"` or `"k.seq_stride"`.
        field: String,
        /// The value that was given.
        value: String,
        /// What the value must satisfy.
        rule: String,
    },
    /// A size exceeds a limit of the adapter (or of 32-bit indexing in the kernels).
    #[error("{field} = {value} exceeds the limit {limit_name} = {limit}")]
    ExceedsLimit {
        /// The field or derived quantity, e.g. `"scores buffer bytes"`.
        field: String,
        /// The value that was needed.
        value: u64,
        /// The name of the limit, e.g. `"max_storage_buffer_binding_size"`.
        limit_name: String,
        /// The limit's value on this adapter.
        limit: u64,
    },
    /// The adapter lacks a feature that this problem needs.
    #[error("{needed_for} needs the adapter feature {feature}, which {adapter} does not have")]
    MissingFeature {
        /// The wgpu feature, e.g. `"SHADER_F16"`.
        feature: String,
        /// What needed it, e.g. `"dtype f16"`.
        needed_for: String,
        /// The adapter's name.
        adapter: String,
    },
    /// A kernel forced with [`crate::Path`] cannot serve this description.
    #[error("path {path} cannot serve this problem: {reason}")]
    PathUnavailable {
        /// The forced path.
        path: String,
        /// Why not.
        reason: String,
    },
    /// A buffer or host slice is smaller than the shape and strides require, or has the wrong usage.
    #[error("buffer {field}: {problem}")]
    Buffer {
        /// Which tensor, e.g. `"k"`.
        field: String,
        /// What is wrong, with the sizes.
        problem: String,
    },
    /// A tensor file (safetensors) given to `sdpa run` is malformed or does not fit the problem.
    #[error("tensor file: {field}: {problem}")]
    TensorFile {
        /// The tensor or header field, e.g. `"q"` or `"header"`.
        field: String,
        /// What is wrong.
        problem: String,
    },
    /// No adapter could be found (or the one named by `WGPU_ADAPTER_NAME` does not exist).
    #[error("no adapter: {0}")]
    NoAdapter(String),
    /// The adapter refused to create a device.
    #[error("request_device failed: {0}")]
    RequestDevice(String),
    /// wgpu reported an error (validation, out of memory, internal, device lost).
    #[error("wgpu {kind} error: {message}")]
    Gpu {
        /// Which kind of error.
        kind: GpuErrorKind,
        /// wgpu's message.
        message: String,
    },
    /// Reading a file failed.
    #[error("io error on {path}: {message}")]
    Io {
        /// The path.
        path: String,
        /// The operating system's message.
        message: String,
    },
}

/// The kinds of errors wgpu reports through error scopes and callbacks, and `Attention::run`'s
/// wait for the GPU running out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum GpuErrorKind {
    /// A validation error: a bug in this crate or a misuse the checks did not catch.
    Validation,
    /// The device ran out of memory.
    OutOfMemory,
    /// An internal error of wgpu or the driver.
    Internal,
    /// The device was lost.
    DeviceLost,
    /// Mapping a buffer for reading failed.
    Map,
    /// `Attention::run` waited for the GPU longer than the context's wait timeout
    /// ([`crate::Context::set_wait_timeout`]); the work it submitted goes on.
    Timeout,
}

impl fmt::Display for GpuErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GpuErrorKind::Validation => "validation",
            GpuErrorKind::OutOfMemory => "out-of-memory",
            GpuErrorKind::Internal => "internal",
            GpuErrorKind::DeviceLost => "device-lost",
            GpuErrorKind::Map => "buffer-map",
            GpuErrorKind::Timeout => "timeout",
        })
    }
}

impl Error {
    /// Shorthand for [`Error::InvalidDesc`].
    pub fn invalid(
        field: impl Into<String>,
        value: impl fmt::Display,
        rule: impl Into<String>,
    ) -> Self {
        Error::InvalidDesc {
            field: field.into(),
            value: value.to_string(),
            rule: rule.into(),
        }
    }

    /// Shorthand for [`Error::ExceedsLimit`].
    pub fn limit(
        field: impl Into<String>,
        value: u64,
        limit_name: impl Into<String>,
        limit: u64,
    ) -> Self {
        Error::ExceedsLimit {
            field: field.into(),
            value,
            limit_name: limit_name.into(),
            limit,
        }
    }

    /// Shorthand for [`Error::Buffer`].
    pub fn buffer(field: impl Into<String>, problem: impl Into<String>) -> Self {
        Error::Buffer {
            field: field.into(),
            problem: problem.into(),
        }
    }

    /// Shorthand for [`Error::TensorFile`].
    pub fn file(field: impl Into<String>, problem: impl Into<String>) -> Self {
        Error::TensorFile {
            field: field.into(),
            problem: problem.into(),
        }
    }

    /// The field this error is about, where it has one (used by tests and the CLI).
    pub fn field(&self) -> Option<&str> {
        match self {
            Error::InvalidDesc { field, .. }
            | Error::ExceedsLimit { field, .. }
            | Error::Buffer { field, .. }
            | Error::TensorFile { field, .. } => Some(field),
            Error::MissingFeature { feature, .. } => Some(feature),
            _ => None,
        }
    }
}

impl From<wgpu::Error> for Error {
    fn from(e: wgpu::Error) -> Self {
        match e {
            wgpu::Error::OutOfMemory { .. } => Error::Gpu {
                kind: GpuErrorKind::OutOfMemory,
                message: e.to_string(),
            },
            wgpu::Error::Validation { description, .. } => Error::Gpu {
                kind: GpuErrorKind::Validation,
                message: description,
            },
            wgpu::Error::Internal { description, .. } => Error::Gpu {
                kind: GpuErrorKind::Internal,
                message: description,
            },
        }
    }
}
