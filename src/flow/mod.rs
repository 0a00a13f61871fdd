//! The physical model, independent of hardware: gas, operating points, and the point-wise
//! numerics (Roe flux, MUSCL + limiter, viscous flux, SA source) as pure functions. These pure
//! functions are the CPU reference that GPU kernels are checked against.

pub mod boundary;
pub mod case;
pub mod gas;
pub mod intermittency;
pub mod solution;
pub mod jacobian;
pub mod muscl;
pub mod riemann;
pub mod roe;
pub mod sa;
pub mod spectral;
pub mod state;
pub mod viscous;
