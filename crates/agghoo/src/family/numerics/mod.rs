//! Numerics shared by several families: the kernels (one [`Kernel`](kernel::Kernel) type for
//! kernel ridge and the SVMs), the dense linear algebra on faer, vector kernels in a fixed
//! summation order, and an `exp` that vectorises. Nothing here knows about grids or paths.

pub(crate) mod exp;
pub mod kernel;
pub(crate) mod linalg;
pub(crate) mod vector;
