//! Parity of the smoothing kernels: being written.
