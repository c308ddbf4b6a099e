//! One module per subcommand.

pub mod compare;
pub mod estimate;
pub mod gen_data;
pub mod predict;
pub mod select;
pub mod splits;
