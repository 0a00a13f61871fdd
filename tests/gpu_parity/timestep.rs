//! Parity of the timestep kernels: being written.
