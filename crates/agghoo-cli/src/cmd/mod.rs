//! One module per subcommand.

pub mod compare;
pub mod estimate;
pub mod features;
pub mod gen_data;
pub mod predict;
pub mod replay;
pub mod reproduce;
pub mod select;
pub mod splits;
pub mod study;
pub mod treecv;
