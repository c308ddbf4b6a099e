//! Numerics shared by several families: the kernels (one [`Kernel`](kernel::Kernel) type for
//! kernel ridge and the SVMs), the dense linear algebra on faer, and vector kernels in a fixed
//! summation order. Nothing here knows about grids or paths.

pub mod kernel;
pub(crate) mod linalg;
pub(crate) mod vector;
